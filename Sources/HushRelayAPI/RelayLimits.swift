import HushProtocol

/// Every size and count a client controls, as one named constant each. The
/// relay refuses anything beyond them (413 for sizes, 422 for counts and
/// shapes); clients use the same numbers to refuse early.
public enum RelayLimits {
    /// Smallest sealed envelope a mailbox accepts: the protocol's smallest
    /// (docs/PROTOCOL.md §9.1, `SealedSender.minimumLength`, 434 bytes).
    public static let minEnvelopeBytes = SealedSender.minimumLength
    /// Largest sealed envelope a mailbox accepts (bytes, before base64): the
    /// protocol's largest (`SealedSender.maximumLength`, 68,896 bytes). One
    /// rule, from one place: the relay refuses what no client can produce.
    public static let maxEnvelopeBytes = SealedSender.maximumLength
    /// Largest ephemeral envelope (typing indicator) relayed over a socket.
    public static let maxEphemeralBytes = 4 * 1024
    /// Largest JSON request body: an envelope in base64 plus field overhead.
    public static let maxJSONBodyBytes = (maxEnvelopeBytes * 4) / 3 + 4 * 1024
    /// Recipients of one fan-out deposit (`POST /v1/fanout`): a group's members.
    public static let maxFanOutRecipients = 255
    /// What one fan-out recipient may take in the JSON body: its mailbox and
    /// credential (44 base64 characters each), its work nonce (12), the field
    /// names and punctuation, with room for an encoder that escapes every `/`.
    public static let maxFanOutRecipientJSONBytes = 320
    /// Largest fan-out body: a deposit's (the envelope once) plus every recipient.
    public static let maxFanOutBodyBytes = maxJSONBodyBytes + maxFanOutRecipients * maxFanOutRecipientJSONBytes
    /// Largest registration body: a bundle with `maxPrekeysPerRequest` KEM prekeys in base64.
    public static let maxRegistrationBodyBytes = 512 * 1024
    /// Largest socket frame a client may send.
    public static let maxSocketMessageBytes = (maxEphemeralBytes * 4) / 3 + 1024
    /// One-time prekeys in one registration or upload request.
    public static let maxPrekeysPerRequest = 100
    /// One-time prekeys of each kind the relay keeps per identity.
    public static let maxStoredOneTimePrekeysPerKind = 500
    /// Client request ids: 1…64 characters of [A-Za-z0-9_-].
    public static let maxRequestIDLength = 64
    /// Messages returned by one sync call, and the default.
    public static let maxSyncLimit = 500
    public static let defaultSyncLimit = 100
    /// Message ids in one acknowledgement.
    public static let maxAckIDs = 500
    /// Delivery-credential hashes added or removed in one request.
    public static let maxCredentialsPerRequest = 64
    /// Delivery-credential hashes a mailbox may hold.
    public static let maxCredentialsPerMailbox = 2_000
    /// Length of a delivery credential token and of its SHA-256 hash.
    public static let credentialLength = 32
    /// Per-mailbox quota: stored envelopes and their total bytes.
    public static let mailboxQuotaCount = 10_000
    public static let mailboxQuotaBytes = 64 * 1024 * 1024
    /// The largest blob a relay may be configured to take: a 4 GiB file
    /// (the protocol's largest attachment) sealed and padded fits.
    public static let maxBlobBytes = 5 << 30
    /// The largest blob a relay takes unless configured otherwise: as much
    /// as an identity's default blob quota, so any file that fits the quota
    /// can be sent (uploads resume, so size costs no robustness).
    public static let defaultMaxBlobBytes = 256 << 20
    /// Seconds a challenge stays valid, and a bearer token.
    public static let challengeLifetimeSeconds: Int64 = 60
    public static let tokenLifetimeSeconds: Int64 = 3_600
    /// The longest Retry-After (seconds) a client honours; a longer one is read as this.
    public static let maxRetryAfterSeconds = 86_400
    /// How far a registration timestamp may be from the relay's clock (seconds).
    public static let registrationClockSkewSeconds: Int64 = 300
    /// Concurrent sockets per identity.
    public static let maxSocketsPerIdentity = 4
    /// Length of the auth challenge nonce.
    public static let challengeNonceLength = 32
    /// A directory record (docs/PROTOCOL.md §20.9): 1 065 … 25 641 bytes,
    /// 1 065 plus whole KiB (the list is padded to whole KiB).
    public static let minDirectoryRecordBytes = DeviceDirectory.minimumRecordLength
    public static let maxDirectoryRecordBytes = DeviceDirectory.maximumRecordLength
    /// A directory write's JSON body: the record in base64 and a little more.
    public static let maxDirectoryBodyBytes = (maxDirectoryRecordBytes * 4) / 3 + 1024
    /// A directory nobody wrote for this long is forgotten (a device renews
    /// it by writing the same record again).
    public static let directoryLifetimeSeconds: Int64 = 400 * 86_400

    /// Whether `record` has the shape of a directory record: its version
    /// byte and one of its lengths. What is inside, only the account's
    /// contacts can open.
    public static func isDirectoryRecordShaped(_ record: [UInt8]) -> Bool {
        record.first == DeviceDirectory.recordVersion
            && (minDirectoryRecordBytes...maxDirectoryRecordBytes).contains(record.count)
            && (record.count - minDirectoryRecordBytes) % DeviceDirectory.paddingBlock == 0
    }
}
