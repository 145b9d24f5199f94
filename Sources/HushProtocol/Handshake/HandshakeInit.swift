import HushCrypto

/// What an initiator attaches to every message until the responder first
/// answers (so a lost first message does not lose the session): its
/// ephemeral key, which prekeys it used, and the ML-KEM ciphertext.
///
///     ephemeral key (32) || signed prekey id (4) || one-time flag (1: 0x00 or 0x01)
///     || [one-time prekey id (4), only when the flag is 0x01]
///     || KEM prekey kind (1: 0x03 last-resort or 0x04 one-time) || KEM prekey id (4) || KEM ciphertext (1088)
public struct HandshakeInit: Sendable, Hashable {
    public let ephemeralKey: X25519.PublicKey
    public let signedPrekeyID: UInt32
    public let oneTimePrekeyID: UInt32?
    public let kemPrekeyKind: PrekeyKind
    public let kemPrekeyID: UInt32
    public let kemCiphertext: [UInt8]

    public init(ephemeralKey: X25519.PublicKey, signedPrekeyID: UInt32, oneTimePrekeyID: UInt32?, kemPrekeyKind: PrekeyKind, kemPrekeyID: UInt32, kemCiphertext: [UInt8]) throws(ProtocolError) {
        guard kemPrekeyKind == .lastResortKEM || kemPrekeyKind == .oneTimeKEM else { throw .malformed(what: "handshake KEM prekey kind") }
        guard kemCiphertext.count == MLKEM.ciphertextLength else { throw .malformed(what: "handshake KEM ciphertext") }
        self.ephemeralKey = ephemeralKey
        self.signedPrekeyID = signedPrekeyID
        self.oneTimePrekeyID = oneTimePrekeyID
        self.kemPrekeyKind = kemPrekeyKind
        self.kemPrekeyID = kemPrekeyID
        self.kemCiphertext = kemCiphertext
    }

    public var encoded: [UInt8] {
        var out = ephemeralKey.rawRepresentation
        out.reserveCapacity(1138)
        out.appendBigEndian(signedPrekeyID)
        if let oneTimePrekeyID {
            out.append(0x01)
            out.appendBigEndian(oneTimePrekeyID)
        } else {
            out.append(0x00)
        }
        out.append(kemPrekeyKind.rawValue)
        out.appendBigEndian(kemPrekeyID)
        out.append(contentsOf: kemCiphertext)
        return out
    }

    static func decode(from reader: inout ByteReader) throws(ProtocolError) -> HandshakeInit {
        let ephemeral: X25519.PublicKey
        do { ephemeral = try X25519.PublicKey(rawRepresentation: try reader.read(32)) } catch { throw .malformed(what: "handshake ephemeral key") }
        let signedID = try reader.u32()
        let flag = try reader.u8()
        let oneTimeID: UInt32?
        switch flag {
        case 0x00: oneTimeID = nil
        case 0x01: oneTimeID = try reader.u32()
        default: throw .malformed(what: "handshake one-time prekey flag")
        }
        guard let kind = PrekeyKind(rawValue: try reader.u8()) else { throw .malformed(what: "handshake KEM prekey kind") }
        let kemID = try reader.u32()
        let ciphertext = try reader.read(MLKEM.ciphertextLength)
        return try HandshakeInit(ephemeralKey: ephemeral, signedPrekeyID: signedID, oneTimePrekeyID: oneTimeID,
                                 kemPrekeyKind: kind, kemPrekeyID: kemID, kemCiphertext: ciphertext)
    }
}
