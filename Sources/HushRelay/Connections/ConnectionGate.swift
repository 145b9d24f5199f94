import NIOCore
import NIOHTTP1

/// The first handler of every connection on the bytes of HTTP (the raw
/// bytes, or behind the relay's own TLS the decrypted ones). It closes a
/// connection that has not completed its first request head (the empty line
/// after the headers) within the deadline, and it is where the relay writes
/// raw answers when the HTTP handlers behind it cannot: a 503 for a
/// connection over the caps, a 400 for bytes the HTTP parser refused.
/// Without it a connection that never sent a byte, sent one a minute, or sent
/// a TLS ClientHello was held open for ever. After the first head,
/// Hummingbird's idle timeout bounds the gaps between reads.
final class ConnectionGate: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    enum Admission { case admitted(headTimeout: TimeAmount), refused }

    private let admission: Admission
    private var context: ChannelHandlerContext?
    private var deadline: Scheduled<Void>?
    private var headComplete = false
    /// A raw answer was written: the connection is closing, so nothing more is.
    private var answered = false
    /// The last bytes seen, to find "\r\n\r\n" across reads.
    private var tail: [UInt8] = []

    init(_ admission: Admission) { self.admission = admission }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        switch admission {
        case let .admitted(timeout):
            let channel = context.channel
            deadline = context.eventLoop.scheduleTask(in: timeout) { channel.close(promise: nil) }
        case .refused:
            if context.channel.isActive { answer("503 Service Unavailable", extra: "Retry-After: 10\r\n") }
        }
    }

    func channelActive(context: ChannelHandlerContext) {
        if case .refused = admission { answer("503 Service Unavailable", extra: "Retry-After: 10\r\n") }
        context.fireChannelActive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        deadline?.cancel()
        deadline = nil
        self.context = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .refused = admission { return }
        if !headComplete {
            let buffer = unwrapInboundIn(data)
            headComplete = Self.endsHead(tail + Array(buffer.readableBytesView))
            tail = Array((tail + buffer.readableBytesView.suffix(3)).suffix(3))
            if headComplete {
                deadline?.cancel()
                deadline = nil
            }
        }
        context.fireChannelRead(data)
    }

    /// The HTTP parser refused the bytes: a 400, then close (no response can
    /// be in flight: a parse error ends the connection's first or next head).
    func refuseMalformed() {
        answer("400 Bad Request", extra: "")
    }

    private func answer(_ status: String, extra: String) {
        guard let context, !answered else { return }
        answered = true
        let response = "HTTP/1.1 \(status)\r\n\(extra)Connection: close\r\nContent-Length: 0\r\n\r\n"
        let channel = context.channel
        context.writeAndFlush(wrapInboundOut(ByteBuffer(string: response))).whenComplete { _ in channel.close(promise: nil) }
    }

    /// Whether `bytes` hold the empty line that ends an HTTP/1.1 request head.
    static func endsHead(_ bytes: [UInt8]) -> Bool {
        guard bytes.count >= 4 else { return false }
        for index in 0...(bytes.count - 4) where bytes[index] == 13 && bytes[index + 1] == 10 && bytes[index + 2] == 13 && bytes[index + 3] == 10 {
            return true
        }
        return false
    }
}

/// The last handler of a connection's HTTP pipeline: a request the HTTP
/// parser refuses (a TLS ClientHello, an HTTP/2 preface, a bad chunk size)
/// is answered 400 by the gate and the connection closed at once, instead of
/// being left open with nobody reading it.
final class ParserErrorCloser: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = Any

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard error is HTTPParserError else {
            context.fireErrorCaught(error)
            return
        }
        if let gate = try? context.pipeline.syncOperations.handler(type: ConnectionGate.self) {
            gate.refuseMalformed()
        } else {
            context.close(promise: nil)
        }
    }
}
