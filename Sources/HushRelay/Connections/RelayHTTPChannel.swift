import HTTPTypes
import HushRelayAPI
import HummingbirdCore
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOHTTPTypes
import NIOHTTPTypesHTTP1
import NIOWebSocket

/// Hummingbird's HTTP/1 child channel with the relay's WebSocket upgrade on
/// `/v1/socket`. Like hummingbird-websocket's `HTTP1WebSocketUpgradeChannel`
/// for HTTP, but an upgraded connection is handed to a `RelaySocketHandler`
/// in the channel pipeline instead of a task that lives as long as the
/// socket: that task and its async frames were most of an idle socket's memory.
struct RelayHTTPChannel: ServerChildChannel, HTTPChannelHandler {
    enum UpgradeResult: Sendable {
        /// The socket runs in its channel's pipeline; nothing to await.
        case webSocket
        case notUpgraded(NIOAsyncChannel<HTTPRequestPart, HTTPResponsePart>)
        case failedUpgrade(NIOAsyncChannel<HTTPRequestPart, HTTPResponsePart>)
    }

    struct Value: ServerChildChannelValue {
        let upgradeResult: EventLoopFuture<UpgradeResult>
        let channel: any Channel
    }

    let responder: HTTPChannelHandler.Responder
    let core: RelayCore
    let http1: HTTP1Channel.Configuration
    let timing: RelaySocketHandler.Timing
    /// Largest WebSocket frame the relay reads (NIO's frame decoder refuses larger).
    let maxFrameSize: Int

    init(responder: @escaping HTTPChannelHandler.Responder, core: RelayCore, http1: HTTP1Channel.Configuration,
         timing: RelaySocketHandler.Timing, maxFrameSize: Int) {
        self.responder = Self.redirectingLateUpgrades(responder)
        self.core = core
        self.http1 = http1
        self.timing = timing
        self.maxFrameSize = maxFrameSize
    }

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        channel.eventLoop.makeCompletedFuture {
            let upgradeAttempted = NIOLoopBoundBox(false, eventLoop: channel.eventLoop)
            let grant = NIOLockedValueBox<TokenGrant?>(nil)
            let core = core
            let timing = timing
            let upgrader = NIOTypedWebSocketServerUpgrader<UpgradeResult>(
                maxFrameSize: maxFrameSize,
                shouldUpgrade: { channel, head in
                    upgradeAttempted.value = true
                    let promise = channel.eventLoop.makePromise(of: HTTPHeaders?.self)
                    promise.completeWithTask {
                        // A refused upgrade is answered 400, as hummingbird-websocket does.
                        guard head.method == .GET, head.uri.split(separator: "?", maxSplits: 1).first.map(String.init) == RelayPaths.socket,
                              let request = try? HTTPRequest(head, secure: false, splitCookie: false),
                              let granted = try? await core.authenticate(Request(head: request, body: .init(buffer: ByteBuffer()))) else {
                            return nil
                        }
                        grant.withLockedValue { $0 = granted }
                        return HTTPHeaders()
                    }
                    return promise.futureResult
                },
                upgradePipelineHandler: { channel, _ in
                    channel.eventLoop.makeCompletedFuture {
                        guard let granted = grant.withLockedValue({ $0 }) else { throw ChannelError.inappropriateOperationForState }
                        let quiesced = try channel.pipeline.syncOperations.handler(type: QuiesceWatcher.self).quiesced
                        try channel.pipeline.syncOperations.addHandler(
                            RelaySocketHandler(grant: granted, core: core, timing: timing, closeAtOnce: quiesced))
                        return UpgradeResult.webSocket
                    }
                }
            )
            let http1 = http1
            let upgrade = NIOTypedHTTPServerUpgradeConfiguration(
                upgraders: [upgrader],
                notUpgradingCompletionHandler: { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(HTTP1ToHTTPServerCodec(secure: false))
                        try channel.pipeline.syncOperations.addHandlers(http1.additionalChannelHandlers())
                        try channel.pipeline.syncOperations.addHandler(
                            HTTPConnectionStateHandler(idleTimeout: http1.idleTimeout.map { .init($0) }, logger: logger))
                        let asyncChannel = try NIOAsyncChannel<HTTPRequestPart, HTTPResponsePart>(
                            wrappingChannelSynchronously: channel, configuration: .init(isOutboundHalfClosureEnabled: true))
                        return upgradeAttempted.value ? .failedUpgrade(asyncChannel) : .notUpgraded(asyncChannel)
                    }
                }
            )
            var configuration = NIOUpgradableHTTPServerPipelineConfiguration<UpgradeResult>(upgradeConfiguration: upgrade)
            configuration.enablePipelining = false  // HTTP is pipelined by NIOAsyncChannel
            configuration.enableErrorHandling = false  // Hummingbird and `ParserErrorCloser` handle them
            configuration.enableResponseHeaderValidation = false  // HTTP Types validates headers already
            configuration.decoderConfiguration.maxHeaderFieldSize = http1.httpDecoder.maxHeaderFieldSize
            configuration.decoderConfiguration.maxHeaderListSize = http1.httpDecoder.maxHeaderListSize
            configuration.decoderConfiguration.maxHeaderFieldCount = http1.httpDecoder.maxHeaderFieldCount
            try channel.pipeline.syncOperations.addHandler(QuiesceWatcher())
            let result = try channel.pipeline.syncOperations.configureUpgradableHTTPServerPipeline(configuration: configuration)
            return Value(upgradeResult: result, channel: channel)
        }
    }

    func handle(value: Value, logger: Logger) async {
        do {
            switch try await value.upgradeResult.get() {
            case .webSocket:
                // The socket's handler owns the channel until it closes.
                return
            case let .notUpgraded(http):
                await handleHTTP(asyncChannel: http, logger: logger)
            case let .failedUpgrade(http):
                await Self.refuseUpgrade(http, logger: logger)
            }
        } catch let error as ChannelError where error == .inputClosed {
            logger.trace("connection closed before the upgrade")
        } catch {
            logger.debug("upgrade failed", metadata: ["error.type": "\(type(of: error))"])
        }
    }

    /// A refused upgrade: 400 and close.
    private static func refuseUpgrade(_ http: NIOAsyncChannel<HTTPRequestPart, HTTPResponsePart>, logger: Logger) async {
        do {
            try await http.executeThenClose { _, outbound in
                let head = HTTPResponse(status: .badRequest, headerFields: [.connection: "close", .contentLength: "0"])
                try await outbound.write(contentsOf: [.head(head), .end(nil)])
            }
        } catch {
            logger.trace("could not answer a refused upgrade")
        }
    }

    /// NIO upgrades only a connection's first request: a later request asking
    /// for an upgrade is redirected to the same URI on a new connection
    /// (hummingbird-websocket does the same).
    private static func redirectingLateUpgrades(_ responder: @escaping HTTPChannelHandler.Responder) -> HTTPChannelHandler.Responder {
        struct RedirectThenClose: Error {}
        return { request, writer, channel in
            guard request.headers[.upgrade] == "websocket" else {
                try await responder(request, writer, channel)
                return
            }
            var path = request.uri.path
            if let query = request.uri.query { path += "?\(query)" }
            try await writer.writeResponse(HTTPResponse(status: .temporaryRedirect, headerFields: [.connection: "close", .location: path]))
            throw RedirectThenClose()
        }
    }
}
