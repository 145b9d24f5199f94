import HushCrypto

/// Versioned session bytes for the store (secret: keep them encrypted):
///
///     0x01 || local identity (32) || remote identity (32) || handshake id (32)
///     || pending flag (1: 0x00 none, 0x01 handshake, 0x02 device handshake)
///     || [account key (32) || device certificate (64), when 0x02] || [handshake init, when 0x01 or 0x02]
///     || ratchet state length (4) || ratchet state (see DoubleRatchet+Serialization)
extension Session {
    public static let serializationVersion: UInt8 = 0x01

    public func serialized() -> SecureBytes {
        var out: [UInt8] = [Session.serializationVersion]
        out += localIdentity.rawRepresentation
        out += remoteIdentity.rawRepresentation
        out += handshakeID
        if let pendingHandshake, let deviceCertificate {
            out.append(0x02)
            out += deviceCertificate.account.rawRepresentation + deviceCertificate.signature
            out += pendingHandshake.encoded
        } else if let pendingHandshake {
            out.append(0x01)
            out += pendingHandshake.encoded
        } else {
            out.append(0x00)
        }
        let state = ratchet.serialized()
        out.appendBigEndian(UInt32(state.count))
        state.withUnsafeBytes { out.append(contentsOf: $0) }
        defer { ConstantTime.wipe(&out) }
        return SecureBytes(copying: out)
    }

    public convenience init(serialized: SecureBytes) throws(ProtocolError) {
        var bytes = serialized.copyBytes()
        defer { ConstantTime.wipe(&bytes) }
        var reader = ByteReader(bytes, what: "session state")
        let version = try reader.u8()
        guard version == Session.serializationVersion else { throw .unsupportedVersion(version) }
        let local = try IdentityKey(rawRepresentation: try reader.read(32))
        let remote = try IdentityKey(rawRepresentation: try reader.read(32))
        let handshakeID = try reader.read(32)
        let pending: HandshakeInit?
        var certificate: DeviceCertificate?
        switch try reader.u8() {
        case 0x00: pending = nil
        case 0x01: pending = try HandshakeInit.decode(from: &reader)
        case 0x02:
            let account = try IdentityKey(rawRepresentation: try reader.read(IdentityKey.length))
            certificate = try DeviceCertificate(account: account, device: local.signingKey, signature: try reader.read(DeviceCertificate.signatureLength))
            pending = try HandshakeInit.decode(from: &reader)
        default: throw .malformed(what: "session state flag")
        }
        let length = Int(try reader.u32())
        var state = try reader.read(length)
        defer { ConstantTime.wipe(&state) }
        try reader.finish()
        let ratchet = try DoubleRatchet(serialized: SecureBytes(copying: state))
        self.init(localIdentity: local, remoteIdentity: remote, handshakeID: handshakeID, pendingHandshake: pending,
                  deviceCertificate: certificate, ratchet: ratchet)
    }
}
