import NIOCore

/// Splits a byte stream into newline-terminated lines (the local API is
/// newline-delimited JSON), refusing a line longer than `maximumLength` so
/// that one client cannot make the daemon buffer without bound.
struct LineFrameDecoder: ByteToMessageDecoder {
    typealias InboundOut = ByteBuffer

    struct LineTooLong: Error, CustomStringConvertible {
        let limit: Int
        var description: String { "a request line is longer than \(limit) bytes" }
    }

    let maximumLength: Int

    mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        guard let newline = buffer.readableBytesView.firstIndex(of: UInt8(ascii: "\n")) else {
            if buffer.readableBytes > maximumLength { throw LineTooLong(limit: maximumLength) }
            return .needMoreData
        }
        let length = newline - buffer.readerIndex
        if length > maximumLength { throw LineTooLong(limit: maximumLength) }
        let line = buffer.readSlice(length: length)!
        buffer.moveReaderIndex(forwardBy: 1)
        context.fireChannelRead(wrapInboundOut(line))
        return .continue
    }

    mutating func decodeLast(context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool) throws -> DecodingState {
        // A last request without its newline still counts.
        while try decode(context: context, buffer: &buffer) == .continue {}
        if buffer.readableBytes > 0 {
            context.fireChannelRead(wrapInboundOut(buffer.readSlice(length: buffer.readableBytes)!))
        }
        return .needMoreData
    }
}
