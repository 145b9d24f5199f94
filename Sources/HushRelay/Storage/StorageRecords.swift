import HushProtocol

// The values the relay's stores take and return. Identities are raw 32-byte
// Ed25519 keys; times are Unix milliseconds.

public struct PrekeyCounts: Sendable, Equatable {
    public var oneTimeX25519: Int
    public var oneTimeKEM: Int
    /// The timestamp and signed prekey of the registration held
    /// (`prekeyCounts` only): a home that did not make it learns that
    /// another home registered its key.
    public var registeredAt: Int64?
    public var signedPrekey: SignedPrekey?
    public init(oneTimeX25519: Int, oneTimeKEM: Int, registeredAt: Int64? = nil, signedPrekey: SignedPrekey? = nil) {
        self.oneTimeX25519 = oneTimeX25519
        self.oneTimeKEM = oneTimeKEM
        self.registeredAt = registeredAt
        self.signedPrekey = signedPrekey
    }
}

public struct TokenGrant: Sendable, Equatable {
    public var identity: [UInt8]
    public var expiresAt: Int64

    public init(identity: [UInt8], expiresAt: Int64) {
        self.identity = identity
        self.expiresAt = expiresAt
    }
}

public struct MailboxQuota: Sendable {
    public var maxCount: Int
    public var maxBytes: Int
    public init(maxCount: Int, maxBytes: Int) {
        self.maxCount = maxCount
        self.maxBytes = maxBytes
    }
}

/// What a deposit produced; the same for every repeat of a request id.
public struct DepositRecord: Sendable, Equatable {
    public var messageID: UInt64
    public var timestamp: Int64
    public var expiresAt: Int64
    /// SHA-256 of the envelope, to tell a true repeat from a reused id.
    public var envelopeDigest: [UInt8]

    public init(messageID: UInt64, timestamp: Int64, expiresAt: Int64, envelopeDigest: [UInt8]) {
        self.messageID = messageID
        self.timestamp = timestamp
        self.expiresAt = expiresAt
        self.envelopeDigest = envelopeDigest
    }
}

public enum DepositOutcome: Sendable, Equatable {
    /// Newly stored. `previousMessageID` is an id at or above every other id
    /// the mailbox held when this deposit committed, and below this one (0
    /// when it held none): the push carries it, so a client that has processed
    /// everything up to it may apply the pushed envelope without a sync.
    case stored(DepositRecord, previousMessageID: UInt64)
    case repeated(DepositRecord)

    public var record: DepositRecord {
        switch self {
        case let .stored(record, _), let .repeated(record): record
        }
    }
}

public struct StoredEnvelope: Sendable, Equatable {
    public var messageID: UInt64
    public var timestamp: Int64
    public var expiresAt: Int64
    public var envelope: [UInt8]

    public init(messageID: UInt64, timestamp: Int64, expiresAt: Int64, envelope: [UInt8]) {
        self.messageID = messageID
        self.timestamp = timestamp
        self.expiresAt = expiresAt
        self.envelope = envelope
    }
}

public struct BlobRecord: Sendable, Equatable {
    public var id: String
    public var size: Int
    public var createdAt: Int64
    public var expiresAt: Int64
    /// The identity that uploaded it (authenticated upload).
    public var uploader: [UInt8]?

    public init(id: String, size: Int, createdAt: Int64, expiresAt: Int64, uploader: [UInt8]?) {
        self.id = id
        self.size = size
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.uploader = uploader
    }
}

/// How much blob storage one identity may hold at once.
public struct BlobQuota: Sendable, Equatable {
    public var maxBytes: Int
    public var maxCount: Int

    public init(maxBytes: Int, maxCount: Int) {
        self.maxBytes = maxBytes
        self.maxCount = maxCount
    }

    /// Refuses `size` more bytes on top of `usage`.
    package func check(adding size: Int, to usage: BlobUsage) throws {
        guard usage.count < maxCount else { throw RelayError.blobQuotaExceeded("\(maxCount) blobs at most") }
        guard size <= maxBytes - usage.bytes else { throw bytesExceeded }
    }

    /// The error for a blob that does not fit in the byte quota.
    var bytesExceeded: RelayError {
        .blobQuotaExceeded((maxBytes >= 1 << 20 ? "\(maxBytes >> 20) MiB" : "\(maxBytes) bytes") + " at most")
    }
}

/// How many items, and how many bytes of them, something holds.
public struct StoredUsage: Sendable, Equatable {
    public var count: Int
    public var bytes: Int

    public init(count: Int, bytes: Int) {
        self.count = count
        self.bytes = bytes
    }
}

/// One identity's unexpired blobs.
public typealias BlobUsage = StoredUsage
/// A mailbox's envelopes.
public typealias MailboxUsage = StoredUsage

/// An account's device directory (docs/PROTOCOL.md §20.9): a sealed
/// record under a blinded name, which the relay cannot link to an address.
public struct DirectoryRecord: Sendable, Equatable {
    /// The blinded key `BK` (32 bytes), the directory's name.
    public var name: [UInt8]
    /// The list's counter: every write must carry a higher one.
    public var counter: UInt64
    public var record: [UInt8]
    /// When it was last written (a write of the same record renews it).
    public var writtenAt: Int64

    public init(name: [UInt8], counter: UInt64, record: [UInt8], writtenAt: Int64) {
        self.name = name
        self.counter = counter
        self.record = record
        self.writtenAt = writtenAt
    }
}

/// What a directory write did.
public enum DirectoryWrite: Sendable, Equatable {
    /// The first record under this name.
    case created
    /// A record with a higher counter replaced the one held.
    case replaced
    /// The same counter and record again: kept, and its time renewed.
    case renewed

    /// The rule every driver applies inside its transaction: a higher
    /// counter replaces, the same counter and bytes renew, anything else is
    /// refused (409) and changes nothing: a relay that let a lower counter
    /// in would hand first contacts an older list.
    package static func deciding(held: (counter: UInt64, record: [UInt8])?, counter: UInt64, record: [UInt8]) throws -> DirectoryWrite {
        guard let held else { return .created }
        if counter > held.counter { return .replaced }
        if counter == held.counter, held.record == record { return .renewed }
        throw RelayError.conflict("the directory holds a list with counter \(held.counter): fetch it, merge, and write a list above it")
    }

    public var name: String {
        switch self {
        case .created: "created"
        case .replaced: "replaced"
        case .renewed: "renewed"
        }
    }
}

public struct SweepResult: Sendable, Equatable {
    public var envelopes = 0
    public var depositRecords = 0
    public var challenges = 0
    public var tokens = 0
    /// Directories nobody wrote for `RelayLimits.directoryLifetime`.
    public var directories = 0
    public var expiredBlobIDs: [String] = []
    public init() {}
}

/// Everything a relay holds, for `hush audit relay`: no envelope bytes, no
/// token hashes, only the fields and sizes.
public struct RelayInventory: Sendable {
    public struct Identity: Sendable {
        public var identity: [UInt8]
        public var registeredAt: Int64
        public var signedPrekeyID: UInt32
        public var lastResortKEMPrekeyID: UInt32
        public var oneTimeX25519: Int
        public var oneTimeKEM: Int
        public var credentials: Int

        public init(identity: [UInt8], registeredAt: Int64, signedPrekeyID: UInt32, lastResortKEMPrekeyID: UInt32, oneTimeX25519: Int, oneTimeKEM: Int, credentials: Int) {
            self.identity = identity
            self.registeredAt = registeredAt
            self.signedPrekeyID = signedPrekeyID
            self.lastResortKEMPrekeyID = lastResortKEMPrekeyID
            self.oneTimeX25519 = oneTimeX25519
            self.oneTimeKEM = oneTimeKEM
            self.credentials = credentials
        }
    }
    public struct Message: Sendable {
        public var mailbox: [UInt8]
        public var messageID: UInt64
        public var timestamp: Int64
        public var expiresAt: Int64
        public var size: Int

        public init(mailbox: [UInt8], messageID: UInt64, timestamp: Int64, expiresAt: Int64, size: Int) {
            self.mailbox = mailbox
            self.messageID = messageID
            self.timestamp = timestamp
            self.expiresAt = expiresAt
            self.size = size
        }
    }
    public var identities: [Identity] = []
    public var messages: [Message] = []
    public var depositRecords = 0
    public var challenges = 0
    public var tokens = 0
    public var blobs: [BlobRecord] = []
    /// Resumable uploads not complete yet (kept beside the blobs, not in the database).
    public var uploads: [UploadInProgress] = []
    /// Device directories: names, counters and sizes (the records are sealed lists).
    public var directories: [Directory] = []
    public init() {}

    public struct Directory: Sendable, Equatable {
        public var name: [UInt8]
        public var counter: UInt64
        public var size: Int
        public var writtenAt: Int64

        public init(name: [UInt8], counter: UInt64, size: Int, writtenAt: Int64) {
            self.name = name
            self.counter = counter
            self.size = size
            self.writtenAt = writtenAt
        }
    }

    public struct UploadInProgress: Sendable, Equatable {
        public var id: String
        public var uploader: [UInt8]
        public var length: Int
        public var received: Int
    }
}
