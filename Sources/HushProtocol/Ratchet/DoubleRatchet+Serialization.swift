import HushCrypto

/// Versioned bytes of the ratchet state, for the store (they hold secrets:
/// the store keeps them in the encrypted database only).
///
///     0x01 || AD (64) || RK (32) || DHs private (32) || presence (1)
///     || [DHr (32)] [CKs (32)] [CKr (32)] [HKs (32)] [HKr (32)]   -- bits 0..4 of presence, in this order
///     || NHKs (32) || NHKr (32) || Ns (4) || Nr (4) || PN (4)
extension DoubleRatchet {
    public static let serializationVersion: UInt8 = 0x01

    public func serialized() -> SecureBytes {
        var out: [UInt8] = [DoubleRatchet.serializationVersion]
        out.reserveCapacity(1 + 64 + 32 * 10 + 1 + 12)
        out += associatedData
        rootKey.withUnsafeBytes { out.append(contentsOf: $0) }
        sendingRatchetKey.rawRepresentation.withUnsafeBytes { out.append(contentsOf: $0) }
        let optionals: [SecureBytes?] = [receivingRatchetKey.map { SecureBytes(copying: $0.rawRepresentation) },
                                         sendingChainKey, receivingChainKey, sendingHeaderKey, receivingHeaderKey]
        var presence: UInt8 = 0
        for (bit, value) in optionals.enumerated() where value != nil { presence |= 1 << UInt8(bit) }
        out.append(presence)
        for value in optionals { value?.withUnsafeBytes { out.append(contentsOf: $0) } }
        nextSendingHeaderKey.withUnsafeBytes { out.append(contentsOf: $0) }
        nextReceivingHeaderKey.withUnsafeBytes { out.append(contentsOf: $0) }
        out.appendBigEndian(sendCount)
        out.appendBigEndian(receiveCount)
        out.appendBigEndian(previousSendCount)
        defer { ConstantTime.wipe(&out) }
        return SecureBytes(copying: out)
    }

    public convenience init(serialized: SecureBytes) throws(ProtocolError) {
        var bytes = serialized.copyBytes()
        defer { ConstantTime.wipe(&bytes) }
        var reader = ByteReader(bytes, what: "ratchet state")
        let version = try reader.u8()
        guard version == DoubleRatchet.serializationVersion else { throw .unsupportedVersion(version) }
        func secret(_ reader: inout ByteReader) throws(ProtocolError) -> SecureBytes {
            var raw = try reader.read(32)
            defer { ConstantTime.wipe(&raw) }
            return SecureBytes(copying: raw)
        }
        let ad = try reader.read(64)
        let root = try secret(&reader)
        let sending: X25519.PrivateKey
        do { sending = try X25519.PrivateKey(rawRepresentation: try secret(&reader)) } catch { throw .malformed(what: "ratchet state key") }
        let presence = try reader.u8()
        guard presence & 0xE0 == 0 else { throw .malformed(what: "ratchet state flags") }
        var optionals: [SecureBytes?] = []
        for bit in 0..<5 { optionals.append(presence & (1 << UInt8(bit)) != 0 ? try secret(&reader) : nil) }
        let receiving: X25519.PublicKey?
        do { receiving = try optionals[0].map { try X25519.PublicKey(rawRepresentation: $0.copyBytes()) } } catch { throw .malformed(what: "ratchet state key") }
        let nhks = try secret(&reader), nhkr = try secret(&reader)
        let ns = try reader.u32(), nr = try reader.u32(), pn = try reader.u32()
        try reader.finish()
        self.init(associatedData: ad, rootKey: root, sendingRatchetKey: sending, receivingRatchetKey: receiving,
                  sendingChainKey: optionals[1], receivingChainKey: optionals[2], sendingHeaderKey: optionals[3],
                  receivingHeaderKey: optionals[4], nextSendingHeaderKey: nhks, nextReceivingHeaderKey: nhkr,
                  sendCount: ns, receiveCount: nr, previousSendCount: pn)
    }
}
