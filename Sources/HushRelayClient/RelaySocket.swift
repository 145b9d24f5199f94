import Foundation
import HTTPTypes
import HummingbirdWSClient
import HushRelayAPI
import Logging
import NIOCore
import NIOSSL
import NIOWebSocket
import Synchronization

/// What arrives on the relay socket.
public enum RelaySocketEvent: Sendable, Equatable {
    /// A new envelope was deposited in our mailbox (also available by sync).
    case message(MailboxMessage)
    /// An ephemeral envelope (typing) from a contact; never stored by the relay.
    case ephemeral([UInt8])
    /// The relay refused a frame we sent.
    case error(code: String, message: String)
    /// The socket closed; reconnect with backoff (re-authenticate on policy violation).
    case closed(code: Int?, reason: String?)
}

/// A connected `/v1/socket`. Events arrive on `events` until `.closed`.
public final class RelaySocket: Sendable {
    public let events: AsyncStream<RelaySocketEvent>
    private let writer: WebSocketOutboundWriter
    private let task: Mutex<Task<Void, Never>?>

    init(events: AsyncStream<RelaySocketEvent>, writer: WebSocketOutboundWriter) {
        self.events = events
        self.writer = writer
        self.task = Mutex(nil)
    }

    /// Sends a typing indicator or other ephemeral envelope to `recipient`,
    /// with the delivery credential the recipient gave us.
    public func sendEphemeral(to recipient: [UInt8], credential: [UInt8], envelope: [UInt8]) async throws(RelayClientError) {
        let frame = SocketClientFrame(recipient: Base64Bytes(recipient), credential: Base64Bytes(credential), envelope: Base64Bytes(envelope))
        do {
            let text = String(decoding: try JSONEncoder().encode(frame), as: UTF8.self)
            try await writer.write(.text(text))
        } catch {
            throw .transport("the socket is closed")
        }
    }

    /// Acknowledges envelopes of this socket's mailbox (no answer comes).
    public func acknowledge(_ ids: [UInt64]) async throws(RelayClientError) {
        do {
            let text = String(decoding: try JSONEncoder().encode(SocketAckFrame(messageIDs: ids)), as: UTF8.self)
            try await writer.write(.text(text))
        } catch {
            throw .transport("the socket is closed")
        }
    }

    /// Closes the socket normally; `events` then ends with `.closed`.
    public func close() async {
        try? await writer.close(.normalClosure, reason: nil)
    }

    /// `sniHostname` replaces an IP address as the TLS server name, which TLS
    /// does not allow (a pinned relay is known by its key, not its name).
    static func connect(url: String, token: String, tlsConfiguration: TLSConfiguration?, sniHostname: String?,
                        logger: Logger) async throws(RelayClientError) -> RelaySocket {
        let (events, sink) = AsyncStream.makeStream(of: RelaySocketEvent.self, bufferingPolicy: .bufferingNewest(4096))
        let (ready, readySink) = AsyncStream.makeStream(of: WebSocketOutboundWriter?.self, bufferingPolicy: .bufferingNewest(1))
        var headers = HTTPFields()
        headers[.authorization] = "Bearer \(token)"
        var configuration = WebSocketClientConfiguration(maxFrameSize: 1 << 17, additionalHeaders: headers)
        configuration.sniHostname = sniHostname
        let task = Task {
            do {
                let close = try await WebSocketClient.connect(url: url, configuration: configuration, tlsConfiguration: tlsConfiguration, logger: logger) { inbound, outbound, _ in
                    readySink.yield(outbound)
                    readySink.finish()
                    for try await message in inbound.messages(maxSize: 1 << 20) {
                        guard case let .text(text) = message,
                              let event = try? JSONDecoder().decode(SocketServerEvent.self, from: Data(text.utf8)) else { continue }
                        switch event {
                        case let .message(message): sink.yield(.message(message))
                        case let .ephemeral(envelope): sink.yield(.ephemeral(envelope.bytes))
                        case let .error(detail): sink.yield(.error(code: detail.code, message: detail.message))
                        }
                    }
                }
                sink.yield(.closed(code: close.map { Int(UInt16(webSocketErrorCode: $0.closeCode)) }, reason: close?.reason))
            } catch {
                sink.yield(.closed(code: nil, reason: "connection failed"))
            }
            readySink.yield(nil)
            readySink.finish()
            sink.finish()
        }
        var iterator = ready.makeAsyncIterator()
        guard let first = await iterator.next(), let writer = first else { throw .socketRefused }
        let socket = RelaySocket(events: events, writer: writer)
        socket.task.withLock { $0 = task }
        return socket
    }
}

