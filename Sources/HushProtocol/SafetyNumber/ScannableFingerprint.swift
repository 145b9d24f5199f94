import HushCrypto

/// The QR-code form of a safety number: libsignal's `CombinedFingerprints`
/// protobuf, which for 32-byte halves is exactly
///
///     0x08 varint(version) || 0x12 0x22 0x0a 0x20 || local (32) || 0x1a 0x22 0x0a 0x20 || remote (32)
///
/// Decoding accepts only this canonical form.
public struct ScannableFingerprint: Sendable, Equatable {
    public let version: UInt32
    public let local: [UInt8]
    public let remote: [UInt8]

    public init(version: UInt32, localHash: [UInt8], remoteHash: [UInt8]) {
        precondition(localHash.count >= 32 && remoteHash.count >= 32)
        self.version = version
        self.local = Array(localHash[..<32])
        self.remote = Array(remoteHash[..<32])
    }

    public func serialized() -> [UInt8] {
        var out: [UInt8] = [0x08]
        var v = version
        repeat {
            let low = UInt8(v & 0x7f)
            v >>= 7
            out.append(v == 0 ? low : low | 0x80)
        } while v != 0
        out += [0x12, 0x22, 0x0a, 0x20] + local + [0x1a, 0x22, 0x0a, 0x20] + remote
        return out
    }

    public init(deserializing bytes: [UInt8]) throws(ProtocolError) {
        var reader = ByteReader(bytes, what: "safety number code")
        guard try reader.u8() == 0x08 else { throw .malformed(what: "safety number code") }
        var version: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            let byte = try reader.u8()
            guard shift < 35 else { throw .malformed(what: "safety number code version") }
            version |= UInt64(byte & 0x7f) << shift
            shift += 7
            if byte & 0x80 == 0 { break }
        }
        guard version <= UInt64(UInt32.max) else { throw .malformed(what: "safety number code version") }
        guard try reader.read(4) == [0x12, 0x22, 0x0a, 0x20] else { throw .malformed(what: "safety number code") }
        let local = try reader.read(32)
        guard try reader.read(4) == [0x1a, 0x22, 0x0a, 0x20] else { throw .malformed(what: "safety number code") }
        let remote = try reader.read(32)
        try reader.finish()
        self.init(version: UInt32(version), localHash: local, remoteHash: remote)
    }

    /// True when `scanned` (the other side's code) is this one seen from the
    /// other end: their local is our remote and vice versa. Constant time.
    public func matches(scanned: [UInt8]) throws(ProtocolError) -> Bool {
        let theirs = try ScannableFingerprint(deserializing: scanned)
        guard theirs.version == version else { throw .malformed(what: "safety number code of another version") }
        let first = ConstantTime.equals(theirs.local, remote)
        let second = ConstantTime.equals(theirs.remote, local)
        return first && second
    }
}
