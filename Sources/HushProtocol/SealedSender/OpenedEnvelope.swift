/// What the recipient learns by opening the sealed-sender layer: who sent it
/// (to be checked against the session), the handshake data of a first-contact
/// message, and the Double Ratchet message to decrypt.
public struct OpenedEnvelope: Sendable {
    public let sender: IdentityKey
    public let handshake: HandshakeInit?
    public let ratchetMessage: [UInt8]

    public init(sender: IdentityKey, handshake: HandshakeInit?, ratchetMessage: [UInt8]) {
        self.sender = sender
        self.handshake = handshake
        self.ratchetMessage = ratchetMessage
    }

    /// Inner plaintext of the sealed layer:
    ///
    ///     type (1: 0x01 message, 0x02 prekey message) || sender identity key (32)
    ///     || [handshake init, type 0x02 only] || ratchet message
    static let messageType: UInt8 = 0x01
    static let prekeyMessageType: UInt8 = 0x02

    /// The inner plaintext bytes (for vectors).
    @_spi(Vectors) public var encoded: [UInt8] {
        var out: [UInt8] = [handshake == nil ? OpenedEnvelope.messageType : OpenedEnvelope.prekeyMessageType]
        out.reserveCapacity(1 + 32 + 1138 + ratchetMessage.count)
        out += sender.rawRepresentation
        if let handshake { out += handshake.encoded }
        out += ratchetMessage
        return out
    }

    static func decode(_ bytes: [UInt8]) throws(ProtocolError) -> OpenedEnvelope {
        var reader = ByteReader(bytes, what: "sealed envelope contents")
        let type = try reader.u8()
        guard type == messageType || type == prekeyMessageType else { throw .malformed(what: "sealed envelope message type") }
        let sender = try IdentityKey(rawRepresentation: try reader.read(IdentityKey.length))
        let handshake = type == prekeyMessageType ? try HandshakeInit.decode(from: &reader) : nil
        let message = try reader.readRest(minimum: RatchetConstants.encryptedHeaderLength + RatchetConstants.tagLength + Padding.minimumPaddedLength)
        return OpenedEnvelope(sender: sender, handshake: handshake, ratchetMessage: message)
    }
}
