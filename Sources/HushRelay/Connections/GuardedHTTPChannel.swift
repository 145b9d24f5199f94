import HummingbirdCore
import Logging
import NIOCore
import NIOSSL

/// The relay's HTTP/1 + WebSocket child channel (`RelayHTTPChannel`) with
/// the relay's connection rules in front (`ConnectionGate`): a place per
/// client address and in total
/// (the excess gets a raw 503 and is closed), a deadline for the first request
/// head, and a 400 and close for bytes the HTTP parser refuses.
struct GuardedHTTPChannel: ServerChildChannel {
    struct Value: ServerChildChannelValue {
        let channel: any Channel
        /// The HTTP exchange of an admitted connection; nil for one refused
        /// at setup, which its gate answers and closes (no HTTP follows).
        let admitted: RelayHTTPChannel.Value?
    }

    let inner: RelayHTTPChannel
    let counter: ConnectionCounter
    /// The relay's own TLS, in front of the gate of an admitted connection
    /// (a refused connection gets its 503 in plain text and is closed
    /// without a handshake).
    let tls: NIOSSLContext?

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        let address = channel.remoteAddress?.ipAddress ?? "unknown"
        guard counter.admit(address) else {
            // The refusal travels in the value, not in a table keyed by the channel's
            // identity: a channel whose setup failed never reaches `handle`, and its
            // entry would have named the next channel allocated at the same address.
            return channel.eventLoop.makeCompletedFuture {
                try channel.pipeline.syncOperations.addHandler(ConnectionGate(.refused), position: .first)
                return Value(channel: channel, admitted: nil)
            }
        }
        channel.closeFuture.whenComplete { _ in counter.release(address) }
        let gate = ConnectionGate(.admitted(headTimeout: .seconds(counter.limits.requestHeadTimeoutSeconds)))
        return channel.eventLoop.makeCompletedFuture {
            let handlers = channel.pipeline.syncOperations
            if let tls {
                // The gate behind TLS: it must see the decrypted bytes to find the end of the
                // first request head. In front, it searched ciphertext, never found it, and
                // closed every connection (WebSockets too) at the head deadline. Its deadline
                // still starts now, so a silent client or a stalled handshake is closed as before.
                let decryption = NIOSSLServerHandler(context: tls)
                try handlers.addHandler(decryption, position: .first)
                try handlers.addHandler(gate, position: .after(decryption))
            } else {
                try handlers.addHandler(gate, position: .first)
            }
        }.flatMap {
            inner.setup(channel: channel, logger: logger)
        }.flatMapThrowing { value in
            try channel.pipeline.syncOperations.addHandler(ParserErrorCloser())
            return Value(channel: channel, admitted: value)
        }
    }

    func handle(value: Value, logger: Logger) async {
        guard let admitted = value.admitted else { return }
        await inner.handle(value: admitted, logger: logger)
    }
}
