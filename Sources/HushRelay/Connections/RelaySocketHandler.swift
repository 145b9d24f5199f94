import Foundation
import HushRelayAPI
import NIOCore
import NIOWebSocket

/// One upgraded `/v1/socket` connection, driven by NIO events alone: an
/// idle socket is a channel with this handler and two timers, and holds no
/// Swift task (a task parked per socket, plus its stack of async frames,
/// was about 25 KiB of the 38 KiB an idle socket cost). A task runs only
/// while the client's frames are being handled.
///
/// What it keeps from the WebSocket protocol: pings every `pingInterval`
/// (a peer that has not answered the previous ping by the next one is
/// closed), pongs to the client's pings, the close handshake (a close is
/// answered; after the relay's own close the peer has `closeTimeout` to
/// answer before the connection is dropped), messages split over
/// continuation frames up to `RelayLimits.maxSocketMessageBytes`.
final class RelaySocketHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = WebSocketFrame
    typealias OutboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    struct Timing {
        var pingInterval: TimeAmount
        var closeTimeout: TimeAmount
    }

    /// Frames from the client waiting to be handled before the relay stops
    /// reading from the connection (TCP then slows the client down).
    static let maxQueuedMessages = 16

    private let grant: TokenGrant
    private let core: RelayCore
    private let timing: Timing
    private var context: ChannelHandlerContext?
    private var socketID: UInt64?

    private var pending = PendingFrames(capacity: ConnectionHub.bufferedFramesPerSocket)
    /// The relay sent its close frame: nothing but the peer's close is read now.
    private var closing = false
    private var pingTimer: RepeatedTask?
    private var expiryTimer: Scheduled<Void>?
    private var closeTimer: Scheduled<Void>?
    /// The data of the ping not yet answered, if any.
    private var unansweredPing: ByteBuffer?

    /// A message arriving in continuation frames.
    private var partial: (opcode: WebSocketOpcode, data: ByteBuffer)?
    private var inbox = CircularBuffer<ClientMessage>()
    private var handlingMessages = false
    private var readHeld = false
    private var strikes = 0

    enum ClientMessage: Sendable {
        case text(String)
        case binary
    }

    /// The server began shutting down during the upgrade: close once added.
    private let closeAtOnce: Bool

    init(grant: TokenGrant, core: RelayCore, timing: Timing, closeAtOnce: Bool = false) {
        self.grant = grant
        self.core = core
        self.timing = timing
        self.closeAtOnce = closeAtOnce
    }

    // MARK: Lifecycle

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        let bound = NIOLoopBound(self, eventLoop: context.eventLoop)
        socketID = core.hub.register(identity: grant.identity, sink: RelaySocketSink(eventLoop: context.eventLoop, handler: bound))
        core.metrics.socketsOpen.record(core.hub.connectionCount)
        core.logger.debug("socket opened", metadata: ["sockets": "\(core.hub.connectionCount)"])

        pingTimer = context.eventLoop.scheduleRepeatedTask(initialDelay: timing.pingInterval, delay: timing.pingInterval) { _ in
            bound.value.pingOrGiveUp()
        }
        // The token's remaining lifetime by the relay's clock, counted from now
        // on the event loop's (a test relay's clock may stand still).
        let remaining = max(0, grant.expiresAt - core.now)
        expiryTimer = context.eventLoop.scheduleTask(in: .milliseconds(min(remaining, 7 * 24 * 3600 * 1000))) {
            bound.value.close(.policyViolation, reason: "token expired: authenticate again")
        }
        if closeAtOnce { close(.normalClosure, reason: nil) }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        pingTimer?.cancel()
        expiryTimer?.cancel()
        closeTimer?.cancel()
        pingTimer = nil
        expiryTimer = nil
        closeTimer = nil
        pending.removeAll()
        inbox.removeAll()
        if let socketID {
            core.hub.unregister(identity: grant.identity, id: socketID)
            core.metrics.socketsOpen.record(core.hub.connectionCount)
            self.socketID = nil
        }
        self.context = nil
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        switch event {
        case ChannelEvent.inputClosed:
            // The peer will send nothing more (the server allows half-closure).
            context.close(promise: nil)
        case is ChannelShouldQuiesceEvent:
            // The relay is shutting down gracefully.
            close(.normalClosure, reason: nil)
        default:
            context.fireUserInboundEventTriggered(event)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // Frame errors were answered with a close by NIO's WebSocketProtocolErrorHandler.
        context.close(promise: nil)
    }

    // MARK: Frames from the client

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        if closing {
            // Only the peer's answer to our close matters now.
            if frame.opcode == .connectionClose { context.close(promise: nil) }
            return
        }
        switch frame.opcode {
        case .connectionClose:
            answerClose(frame)
        case .ping:
            guard frame.fin, frame.length < 126 else { return close(.protocolError, reason: nil) }
            write(WebSocketFrame(fin: true, opcode: .pong, data: frame.unmaskedData))
        case .pong:
            if frame.fin, let ping = unansweredPing, frame.unmaskedData == ping { unansweredPing = nil }
        case .text, .binary, .continuation:
            guard !frame.rsv1, !frame.rsv2, !frame.rsv3 else { return close(.protocolError, reason: nil) }
            assemble(frame)
        default:
            close(.protocolError, reason: nil)
        }
    }

    /// Holds back reads while too many messages wait to be handled.
    func read(context: ChannelHandlerContext) {
        if inbox.count >= Self.maxQueuedMessages {
            readHeld = true
        } else {
            context.read()
        }
    }

    private func assemble(_ frame: WebSocketFrame) {
        var data = frame.unmaskedData
        if frame.opcode == .continuation {
            guard var message = partial else { return close(.protocolError, reason: nil) }
            guard message.data.readableBytes + data.readableBytes <= RelayLimits.maxSocketMessageBytes else {
                return close(.messageTooLarge, reason: nil)
            }
            message.data.writeBuffer(&data)
            partial = frame.fin ? nil : message
            if frame.fin { receive(message.opcode, message.data) }
        } else {
            guard partial == nil else { return close(.protocolError, reason: nil) }
            if frame.fin {
                receive(frame.opcode, data)
            } else {
                partial = (frame.opcode, data)
            }
        }
    }

    private func receive(_ opcode: WebSocketOpcode, _ data: ByteBuffer) {
        inbox.append(opcode == .text ? .text(String(buffer: data)) : .binary)
        guard !handlingMessages, let context else { return }
        handlingMessages = true
        let bound = NIOLoopBound(self, eventLoop: context.eventLoop)
        let eventLoop = context.eventLoop
        let core = core
        let sender = grant.identity
        guard let first = inbox.popFirst() else { return }
        Self.startHandling(first, sender: sender, core: core, eventLoop: eventLoop, handler: bound)
    }

    private static func startHandling(_ first: ClientMessage, sender: [UInt8], core: RelayCore,
                                      eventLoop: any EventLoop, handler: NIOLoopBound<RelaySocketHandler>) {
        Task { await handleMessages(from: first, sender: sender, core: core, eventLoop: eventLoop, handler: handler) }
    }

    /// Handles the client's messages one after another, then ends: no task
    /// waits while the client is quiet.
    private static func handleMessages(from first: ClientMessage, sender: [UInt8], core: RelayCore,
                                       eventLoop: any EventLoop, handler: NIOLoopBound<RelaySocketHandler>) async {
        var message: ClientMessage? = first
        while let current = message {
            let outcome = await handle(current, sender: sender, core: core)
            message = try? await eventLoop.submit { handler.value.handled(outcome) }.get()
        }
    }

    enum Outcome: Sendable {
        case accepted
        case refused(code: String, message: String)
        case failed
    }

    private static func handle(_ message: ClientMessage, sender: [UInt8], core: RelayCore) async -> Outcome {
        do {
            guard case let .text(text) = message else { throw RelayError.malformed("frames are JSON text") }
            try await SocketRoute.handleClientFrame(Data(text.utf8), sender: sender, core: core)
            return .accepted
        } catch let error as RelayError {
            return .refused(code: error.code.rawValue, message: error.clientMessage)
        } catch {
            return .failed
        }
    }

    /// On the event loop after a message was handled: answers a refusal,
    /// and returns the next message to handle, if any.
    private func handled(_ outcome: Outcome) -> ClientMessage? {
        switch outcome {
        case .accepted:
            break
        case let .refused(code, message):
            strikes += 1
            if let frame = SocketFrames.encode(.error(.init(code: code, message: message))) { push(frame) }
            if strikes >= SocketRoute.maxStrikes { close(.policyViolation, reason: "too many refused frames") }
        case .failed:
            close(.unexpectedServerError, reason: nil)
        }
        if readHeld, inbox.count < Self.maxQueuedMessages, let context {
            readHeld = false
            context.read()
        }
        guard !closing, context != nil, let next = inbox.popFirst() else {
            handlingMessages = false
            return nil
        }
        return next
    }

    // MARK: Frames to the client

    /// A frame from the hub (a push, an ephemeral envelope), or an error frame.
    func push(_ text: String) {
        guard !closing, let context else { return }
        if pending.isEmpty, context.channel.isWritable {
            write(WebSocketFrame(fin: true, opcode: .text, data: context.channel.allocator.buffer(string: text)))
        } else {
            pending.append(text)
        }
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        while context.channel.isWritable, !closing, let text = pending.popFirst() {
            context.write(wrapOutboundOut(WebSocketFrame(fin: true, opcode: .text, data: context.channel.allocator.buffer(string: text))),
                          promise: nil)
        }
        context.flush()
        context.fireChannelWritabilityChanged()
    }

    private func write(_ frame: WebSocketFrame) {
        context?.writeAndFlush(wrapOutboundOut(frame), promise: nil)
    }

    private func pingOrGiveUp() {
        guard !closing, let context else { return }
        if unansweredPing != nil {
            close(.goingAway, reason: "Ping timeout")
            context.close(promise: nil)
            return
        }
        var data = context.channel.allocator.buffer(capacity: 16)
        for _ in 0..<16 { data.writeInteger(UInt8.random(in: .min ... .max)) }
        unansweredPing = data
        write(WebSocketFrame(fin: true, opcode: .ping, data: data))
    }

    // MARK: Closing

    /// Sends the relay's close frame (once) and gives the peer
    /// `closeTimeout` to answer before the connection is dropped.
    func close(_ code: WebSocketErrorCode, reason: String?) {
        guard !closing, let context else { return }
        closing = true
        pending.removeAll()
        pingTimer?.cancel()
        expiryTimer?.cancel()
        var data = context.channel.allocator.buffer(capacity: 2 + (reason?.utf8.count ?? 0))
        data.write(webSocketErrorCode: code)
        if let reason { data.writeString(reason) }
        write(WebSocketFrame(fin: true, opcode: .connectionClose, data: data))
        let channel = context.channel
        closeTimer = context.eventLoop.scheduleTask(in: timing.closeTimeout) { channel.close(promise: nil) }
    }

    /// The peer closes: answer as RFC 6455 asks, then close the connection.
    private func answerClose(_ frame: WebSocketFrame) {
        guard let context else { return }
        closing = true
        var data = frame.unmaskedData
        let size = data.readableBytes
        let code = data.readWebSocketErrorCode()
        let answer: WebSocketErrorCode
        if size == 0 {
            answer = .normalClosure
        } else if let code {
            if case let .unknown(raw) = code, raw < 3000 || raw > 4999 { answer = .protocolError } else { answer = .normalClosure }
        } else {
            answer = .protocolError
        }
        var reply = context.channel.allocator.buffer(capacity: 2)
        reply.write(webSocketErrorCode: answer)
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(WebSocketFrame(fin: true, opcode: .connectionClose, data: reply))).whenComplete { _ in
            channel.close(promise: nil)
        }
    }
}
