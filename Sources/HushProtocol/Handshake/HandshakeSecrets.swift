import HushCrypto

/// What the handshake yields to the Double Ratchet (docs/PROTOCOL.md, "Handshake").
public struct HandshakeSecrets: Sendable {
    /// SHA-256 of the transcript; bound into the KDF.
    public let transcriptHash: [UInt8]
    /// The first root key (SK in the Double Ratchet specification).
    public let rootKey: SecureBytes
    /// shared_hka: the initiator's first sending header key.
    public let initiatorHeaderKey: SecureBytes
    /// shared_nhkb: the responder's first next sending header key.
    public let responderNextHeaderKey: SecureBytes
    /// AD = initiator identity key (32) || responder identity key (32).
    public let associatedData: [UInt8]
}
