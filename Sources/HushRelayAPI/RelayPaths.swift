import HushCrypto

/// How identities appear in paths: 64 lower-case hex digits of the raw
/// Ed25519 key. One place, so the relay and the client never disagree.
public enum RelayPaths {
    public static func identitySegment(_ identityKey: [UInt8]) -> String { Hex.encode(identityKey) }

    public static func mailboxMessages(_ identityKey: [UInt8]) -> String { "/v1/mailboxes/\(identitySegment(identityKey))/messages" }
    public static func mailboxAck(_ identityKey: [UInt8]) -> String { "/v1/mailboxes/\(identitySegment(identityKey))/ack" }
    public static func mailboxCredentials(_ identityKey: [UInt8]) -> String { "/v1/mailboxes/\(identitySegment(identityKey))/credentials" }
    public static func bundle(_ identityKey: [UInt8]) -> String { "/v1/identities/\(identitySegment(identityKey))/bundle" }
    /// An account's device directory, named by its blinded key (docs/PROTOCOL.md §20.9).
    public static func directory(_ name: [UInt8]) -> String { "/v1/directory/\(identitySegment(name))" }
    /// One envelope for several mailboxes (`FanOutRequest`).
    public static let fanOut = "/v1/fanout"
    public static let identities = "/v1/identities"
    public static let prekeys = "/v1/prekeys"
    public static let prekeyCount = "/v1/prekeys/count"
    public static let challenge = "/v1/auth/challenge"
    public static let token = "/v1/auth/token"
    public static let blobs = "/v1/blobs"
    public static func blob(_ id: String) -> String { "/v1/blobs/\(id)" }
    public static let blobUploads = "/v1/blobs/uploads"
    public static func blobUpload(_ id: String) -> String { "/v1/blobs/uploads/\(id)" }
    public static let socket = "/v1/socket"
    public static let health = "/v1/health"
}

/// Delivery credentials: a 32-byte random token the owner hands a contact;
/// the relay stores and compares only its SHA-256.
public enum DeliveryCredential {
    public static func hash(_ token: [UInt8]) -> [UInt8] { SHA256.hash(token) }
}
