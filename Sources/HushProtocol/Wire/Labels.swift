/// Every domain-separation label Hush feeds to a KDF, MAC or hash, in one
/// place (docs/PROTOCOL.md, "Labels"). Each is ASCII followed by one 0x00 byte,
/// so no label is a prefix of another input.
public enum Labels {
    static func label(_ text: String) -> [UInt8] { Array(text.utf8) + [0x00] }

    /// HKDF info prefix for the handshake's first root key and header keys.
    public static let handshake = label("hush/v1/handshake")
    /// Prefix of the handshake transcript hash.
    public static let transcript = label("hush/v1/transcript")
    /// HKDF info of the root-chain step (KDF_RK).
    public static let rootChain = label("hush/v1/root")
    /// HKDF info of the sealed-sender layer key.
    public static let sealedSender = label("hush/v1/sealed-sender")
    /// HKDF info of a group state's envelope key (§18.3).
    public static let groupEnvelope = label("hush/v1/group-envelope")
    /// Prefix of what a sender-key distribution's signature covers (§18.1).
    public static let senderKeyDistribution = label("hush/v1/sender-key-distribution")
    /// The 32 0xFF bytes put in front of the handshake's key material, as X3DH
    /// does, so the input can never be mistaken for an XEdDSA/X25519 input elsewhere.
    public static let handshakePrefix = [UInt8](repeating: 0xFF, count: 32)
}
