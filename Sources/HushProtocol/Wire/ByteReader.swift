/// A strict cursor over received bytes: every read checks the remaining
/// length first, and `finish` refuses trailing bytes. Decoders of every Hush
/// structure use it, so no length is ever trusted before it is checked.
struct ByteReader {
    private let bytes: [UInt8]
    private(set) var offset: Int
    let what: String

    init(_ bytes: [UInt8], what: String) {
        self.bytes = bytes
        self.offset = 0
        self.what = what
    }

    var remaining: Int { bytes.count - offset }

    mutating func read(_ count: Int) throws(ProtocolError) -> [UInt8] {
        guard count >= 0, count <= remaining else { throw .malformed(what: "\(what) (truncated)") }
        defer { offset += count }
        return Array(bytes[offset..<offset + count])
    }

    /// Everything left, at least `minimum` bytes.
    mutating func readRest(minimum: Int = 0) throws(ProtocolError) -> [UInt8] {
        guard remaining >= minimum else { throw .malformed(what: "\(what) (truncated)") }
        return try read(remaining)
    }

    mutating func u8() throws(ProtocolError) -> UInt8 {
        guard remaining >= 1 else { throw .malformed(what: "\(what) (truncated)") }
        defer { offset += 1 }
        return bytes[offset]
    }

    mutating func u16() throws(ProtocolError) -> UInt16 {
        UInt16(try readInteger(2))
    }

    mutating func u32() throws(ProtocolError) -> UInt32 {
        UInt32(try readInteger(4))
    }

    mutating func u64() throws(ProtocolError) -> UInt64 {
        try readInteger(8)
    }

    private mutating func readInteger(_ width: Int) throws(ProtocolError) -> UInt64 {
        guard remaining >= width else { throw .malformed(what: "\(what) (truncated)") }
        var value: UInt64 = 0
        for i in 0..<width { value = value << 8 | UInt64(bytes[offset + i]) }
        offset += width
        return value
    }

    /// Refuses trailing bytes.
    func finish() throws(ProtocolError) {
        guard remaining == 0 else { throw .malformed(what: "\(what) (trailing bytes)") }
    }
}

/// Big-endian appends, the only integer encoding Hush uses on the wire.
extension Array where Element == UInt8 {
    mutating func appendBigEndian(_ value: UInt16) {
        append(UInt8(value >> 8)); append(UInt8(truncatingIfNeeded: value))
    }

    mutating func appendBigEndian(_ value: UInt32) {
        for shift in stride(from: 24, through: 0, by: -8) { append(UInt8(truncatingIfNeeded: value >> UInt32(shift))) }
    }

    mutating func appendBigEndian(_ value: UInt64) {
        for shift in stride(from: 56, through: 0, by: -8) { append(UInt8(truncatingIfNeeded: value >> UInt64(shift))) }
    }
}
