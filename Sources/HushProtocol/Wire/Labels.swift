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
    /// A device id: the first 16 bytes of SHA-256 of this label and the device key (§20.1).
    public static let deviceID = label("hush/v1/device-id")
    /// What a device signs to show it holds its key and joins the account (§20.2).
    public static let deviceProof = label("hush/v1/device-proof")
    /// Prefix of what the account identity key signs of a device list (§20.2).
    public static let deviceList = label("hush/v1/device-list")
    /// Prefix of what the signing device signs of a device list (§20.2).
    public static let deviceListSigner = label("hush/v1/device-list-signer")
    /// The stable id of the device-list fingerprint (§20.4).
    public static let deviceListFingerprint = label("hush/v1/device-list-fingerprint")
    /// Prefix of a link code's checksum (§20.5).
    public static let linkCode = label("hush/v1/link-code")
    /// HKDF info of a link's mailbox name at the relay (§20.6).
    public static let linkID = label("hush/v1/link-id")
    /// HKDF info of the key that authenticates a link's hello and welcome (§20.6).
    public static let linkAuth = label("hush/v1/link-auth")
    /// Prefix of the hello's MAC (§20.6).
    public static let linkHello = label("hush/v1/link-hello")
    /// Prefix of the welcome's MAC (§20.6).
    public static let linkWelcome = label("hush/v1/link-welcome")
    /// HKDF info prefix of the link channel's keys (§20.6).
    public static let linkChannel = label("hush/v1/link-channel")
    /// HKDF info of the Ed25519 seed of the link's throwaway relay identity (§20.6).
    public static let linkMailbox = label("hush/v1/link-mailbox")
    /// HKDF info of the delivery credential both devices deposit into the link mailbox with (§20.6).
    public static let linkCredential = label("hush/v1/link-credential")
    /// The blinding factor of an account's directory name (§20.9).
    public static let directoryBlind = label("hush/v1/directory-blind")
    /// The nonce prefix of signatures under the directory name (§20.9).
    public static let directoryBlindPrefix = label("hush/v1/directory-blind-prefix")
    /// HKDF info of the key that seals an account's directory record (§20.9).
    public static let directoryKey = label("hush/v1/directory-key")
    /// Prefix of what a directory write signs (§20.9).
    public static let directoryPut = label("hush/v1/directory-put")
    /// Prefix of what the account key signs of a device key (§20.10).
    public static let deviceCertificate = label("hush/v1/device-certificate")
    /// HKDF info prefix of a large group member's first chain key (§18.4).
    public static let memberChain = label("hush/v1/member-chain")
    /// Prefix of what a large group member's identity key signs of its signing key (§18.4).
    public static let memberSigningKey = label("hush/v1/member-signing-key")
    /// The 32 0xFF bytes put in front of the handshake's key material, as X3DH
    /// does, so the input can never be mistaken for an XEdDSA/X25519 input elsewhere.
    public static let handshakePrefix = [UInt8](repeating: 0xFF, count: 32)
}
