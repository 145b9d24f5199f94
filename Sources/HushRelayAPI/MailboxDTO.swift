/// `POST /v1/mailboxes/{identity}/messages`: deposit a sealed envelope.
/// Carries no sender identity. `credential` is a delivery credential token the
/// mailbox owner gave the sender inside their encrypted session; without it the
/// deposit counts as first contact and is tightly rate limited.
public struct DepositRequest: Codable, Sendable {
    /// Client-chosen idempotency key: 1…64 of [A-Za-z0-9_-].
    public var requestID: String
    public var envelope: Base64Bytes
    public var credential: Base64Bytes?
    /// A first contact's proof-of-work nonce (`FirstContactWork`).
    public var work: Base64Bytes?
    /// SHA-256 of `envelope` (`EnvelopeDigest`); optional, checked when present.
    public var envelopeSHA256: Base64Bytes?
    public init(requestID: String, envelope: Base64Bytes, credential: Base64Bytes?, work: Base64Bytes? = nil,
                envelopeSHA256: Base64Bytes? = nil) {
        self.requestID = requestID
        self.envelope = envelope
        self.credential = credential
        self.work = work
        self.envelopeSHA256 = envelopeSHA256
    }
}

/// The 201 answer to a deposit, identical for a repeated request id.
public struct DepositResponse: Codable, Sendable, Equatable {
    /// Time-ordered, strictly increasing per mailbox.
    public var messageID: UInt64
    /// Relay time of the first deposit, Unix milliseconds.
    public var timestamp: Int64
    public init(messageID: UInt64, timestamp: Int64) {
        self.messageID = messageID
        self.timestamp = timestamp
    }
}

/// One stored envelope as the mailbox owner sees it.
public struct MailboxMessage: Codable, Sendable, Equatable {
    public var messageID: UInt64
    public var timestamp: Int64
    public var expiresAt: Int64
    public var envelope: Base64Bytes
    /// SHA-256 of `envelope` (`EnvelopeDigest`): the client checks it before
    /// using the envelope and fetches again on a mismatch.
    public var envelopeSHA256: Base64Bytes?
    /// Pushes only: an id below `messageID` and at or above every other id
    /// the mailbox held when this deposit committed (0: it held none).
    /// A client that has processed everything up to it may apply the pushed
    /// envelope without syncing (RELAY-API.md, "WebSocket").
    public var previousMessageID: UInt64?
    public init(messageID: UInt64, timestamp: Int64, expiresAt: Int64, envelope: Base64Bytes,
                envelopeSHA256: Base64Bytes? = nil, previousMessageID: UInt64? = nil) {
        self.messageID = messageID
        self.timestamp = timestamp
        self.expiresAt = expiresAt
        self.envelope = envelope
        self.envelopeSHA256 = envelopeSHA256
        self.previousMessageID = previousMessageID
    }

    /// Whether the envelope arrived as the relay holds it (or no digest came).
    public var isIntact: Bool { EnvelopeDigest.matches(envelopeSHA256?.bytes, envelope.bytes) }
}

/// `GET /v1/mailboxes/{identity}/messages?after=ID&limit=N` (owner only).
public struct SyncResponse: Codable, Sendable, Equatable {
    public var messages: [MailboxMessage]
    /// True when more messages follow the last one returned.
    public var hasMore: Bool
    public init(messages: [MailboxMessage], hasMore: Bool) {
        self.messages = messages
        self.hasMore = hasMore
    }
}

/// `POST /v1/mailboxes/{identity}/ack` (owner only): delete delivered envelopes.
public struct AckRequest: Codable, Sendable {
    public var messageIDs: [UInt64]
    public init(messageIDs: [UInt64]) { self.messageIDs = messageIDs }
}

public struct AckResponse: Codable, Sendable, Equatable {
    /// How many of the ids were still stored (and are now deleted).
    public var deleted: Int
    public init(deleted: Int) { self.deleted = deleted }
}

/// `POST /v1/mailboxes/{identity}/credentials` (owner only): SHA-256 hashes of
/// delivery credential tokens to add or revoke.
public struct CredentialsRequest: Codable, Sendable {
    public var add: [Base64Bytes]
    public var remove: [Base64Bytes]
    public init(add: [Base64Bytes] = [], remove: [Base64Bytes] = []) {
        self.add = add
        self.remove = remove
    }
}

public struct CredentialsResponse: Codable, Sendable, Equatable {
    public var count: Int
    public init(count: Int) { self.count = count }
}

/// `POST /v1/blobs` answer (201); the body of the upload is the raw encrypted bytes.
public struct BlobUploadResponse: Codable, Sendable, Equatable {
    /// 64 hex digits (32 random bytes): unguessable, so it works as a capability.
    public var blobID: String
    public var size: Int
    public var expiresAt: Int64
    public init(blobID: String, size: Int, expiresAt: Int64) {
        self.blobID = blobID
        self.size = size
        self.expiresAt = expiresAt
    }
}

/// `GET /v1/health`.
public struct HealthResponse: Codable, Sendable, Equatable {
    public var status: String
    public init(status: String) { self.status = status }
}
