/// What the recipient learns by opening the sealed-sender layer: who sent it
/// (to be checked against the session), the handshake data of a first-contact
/// message, and the Double Ratchet message to decrypt.
public struct OpenedEnvelope: Sendable {
    public let sender: IdentityKey
    public let handshake: HandshakeInit?
    public let ratchetMessage: [UInt8]
    /// For a device prekey message (§20.10): the account the sending device
    /// (`sender`, its device key) belongs to, with the account's certificate.
    public let deviceCertificate: DeviceCertificate?

    public init(sender: IdentityKey, handshake: HandshakeInit?, ratchetMessage: [UInt8], deviceCertificate: DeviceCertificate? = nil) {
        precondition(deviceCertificate == nil || handshake != nil, "a device certificate travels in a prekey message")
        self.sender = sender
        self.handshake = handshake
        self.ratchetMessage = ratchetMessage
        self.deviceCertificate = deviceCertificate
    }

    /// Inner plaintext of the sealed layer:
    ///
    ///     type (1: 0x01 message, 0x02 prekey message, 0x03 device prekey message) || sender key (32)
    ///     || [account key (32) || certificate (64), type 0x03 only]
    ///     || [handshake init, types 0x02 and 0x03] || ratchet message
    static let messageType: UInt8 = 0x01
    static let prekeyMessageType: UInt8 = 0x02
    static let devicePrekeyMessageType: UInt8 = 0x03

    /// The inner plaintext bytes (for vectors).
    @_spi(Vectors) public var encoded: [UInt8] {
        let type = deviceCertificate != nil ? OpenedEnvelope.devicePrekeyMessageType
            : handshake == nil ? OpenedEnvelope.messageType : OpenedEnvelope.prekeyMessageType
        var out: [UInt8] = [type]
        out.reserveCapacity(1 + 32 + DeviceCertificate.encodedLength + 1138 + ratchetMessage.count)
        out += sender.rawRepresentation
        if let deviceCertificate { out += deviceCertificate.account.rawRepresentation + deviceCertificate.signature }
        if let handshake { out += handshake.encoded }
        out += ratchetMessage
        return out
    }

    /// Reads an inner plaintext. Device prekey messages (§20.10) are read only
    /// with `acceptingDevicePrekeyMessages`: the messenger does not file
    /// sessions per device yet, so it refuses them as an unknown type, as
    /// before; vectors and tests read them.
    static func decode(_ bytes: [UInt8], acceptingDevicePrekeyMessages: Bool = false) throws(ProtocolError) -> OpenedEnvelope {
        var reader = ByteReader(bytes, what: "sealed envelope contents")
        let type = try reader.u8()
        guard type == messageType || type == prekeyMessageType || (acceptingDevicePrekeyMessages && type == devicePrekeyMessageType) else {
            throw .malformed(what: "sealed envelope message type")
        }
        let sender = try IdentityKey(rawRepresentation: try reader.read(IdentityKey.length))
        var certificate: DeviceCertificate?
        if type == devicePrekeyMessageType {
            let account = try IdentityKey(rawRepresentation: try reader.read(IdentityKey.length))
            certificate = try DeviceCertificate(account: account, device: sender.signingKey,
                                                signature: try reader.read(DeviceCertificate.signatureLength))
        }
        let handshake = type == messageType ? nil : try HandshakeInit.decode(from: &reader)
        let message = try reader.readRest(minimum: RatchetConstants.encryptedHeaderLength + RatchetConstants.tagLength + Padding.minimumPaddedLength)
        return OpenedEnvelope(sender: sender, handshake: handshake, ratchetMessage: message, deviceCertificate: certificate)
    }

    /// Reads a device prekey message's inner plaintext, or any other (vectors, tests).
    @_spi(Vectors) public static func decodeAcceptingDevices(_ bytes: [UInt8]) throws(ProtocolError) -> OpenedEnvelope {
        try decode(bytes, acceptingDevicePrekeyMessages: true)
    }
}
