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
    typealias Value = RelayHTTPChannel.Value

    let inner: RelayHTTPChannel
    let counter: ConnectionCounter
    /// The relay's own TLS, in front of the gate of an admitted connection
    /// (a refused connection gets its 503 in plain text and is closed
    /// without a handshake).
    let tls: NIOSSLContext?

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        let address = channel.remoteAddress?.ipAddress ?? "unknown"
        let admission: ConnectionGate.Admission
        if counter.admit(address) {
            channel.closeFuture.whenComplete { _ in counter.release(address) }
            admission = .admitted(headTimeout: .seconds(counter.limits.requestHeadTimeoutSeconds))
        } else {
            counter.markRefused(channel)
            admission = .refused
        }
        return channel.eventLoop.makeCompletedFuture {
            let handlers = channel.pipeline.syncOperations
            if let tls, case .admitted = admission {
                // The gate behind TLS: it must see the decrypted bytes to find the end of the
                // first request head. In front, it searched ciphertext, never found it, and
                // closed every connection (WebSockets too) at the head deadline. Its deadline
                // still starts now, so a silent client or a stalled handshake is closed as before.
                let decryption = NIOSSLServerHandler(context: tls)
                try handlers.addHandler(decryption, position: .first)
                try handlers.addHandler(ConnectionGate(admission), position: .after(decryption))
            } else {
                try handlers.addHandler(ConnectionGate(admission), position: .first)
            }
        }.flatMap {
            inner.setup(channel: channel, logger: logger)
        }.flatMapThrowing { value in
            try channel.pipeline.syncOperations.addHandler(ParserErrorCloser())
            return value
        }
    }

    func handle(value: Value, logger: Logger) async {
        // A refused connection is answered and closed by its gate: no HTTP exchange follows.
        if counter.takeRefused(value.channel) { return }
        await inner.handle(value: value, logger: logger)
    }
}
