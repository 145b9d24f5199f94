import HushCrypto
import HushProtocol

/// An envelope waiting in our mailbox at the relay.
public struct MailboxEnvelope: Sendable, Equatable {
    /// The relay's id: time-ordered and increasing within our mailbox.
    public let serverID: Int64
    /// The relay's clock when it stored the envelope (ms since 1970).
    public let relayTimestamp: Int64
    public let bytes: [UInt8]
    /// A push's previous id (the relay's `previousMessageID`): every envelope
    /// the mailbox could still hold below `serverID` is at or below it. Nil
    /// for envelopes of a sync page, and for pushes that only signal a sync.
    public let previousServerID: Int64?

    public init(serverID: Int64, relayTimestamp: Int64, bytes: [UInt8], previousServerID: Int64? = nil) {
        self.serverID = serverID
        self.relayTimestamp = relayTimestamp
        self.bytes = bytes
        self.previousServerID = previousServerID
    }
}

/// The relay's answer to a deposit: its id and time for our envelope.
public struct DepositReceipt: Sendable, Equatable {
    public let serverID: Int64
    public let relayTimestamp: Int64

    public init(serverID: Int64, relayTimestamp: Int64) {
        self.serverID = serverID
        self.relayTimestamp = relayTimestamp
    }
}

/// One recipient of a fan-out deposit: the identity whose mailbox gets the
/// envelope, and the delivery credential it gave us (nil: a first contact,
/// which pays the relay's proof of work).
public struct FanOutRecipient: Sendable, Equatable {
    public let key: IdentityKey
    public let credential: [UInt8]?

    public init(key: IdentityKey, credential: [UInt8]?) {
        self.key = key
        self.credential = credential
    }
}

/// What the live connection delivers.
public enum TransportEvent: Sendable, Equatable {
    case envelope(MailboxEnvelope)
    /// An ephemeral (never stored) envelope, such as a typing indicator.
    case ephemeral([UInt8])
    /// The connection ended; the caller reconnects with backoff.
    case disconnected(reason: String)
}

/// What one page of a sync returned.
public struct MailboxPage: Sendable, Equatable {
    public let envelopes: [MailboxEnvelope]
    public let hasMore: Bool

    public init(envelopes: [MailboxEnvelope], hasMore: Bool) {
        self.envelopes = envelopes
        self.hasMore = hasMore
    }
}

/// The relay as the pipeline needs it: one port per job, as the relay splits
/// its own stores (identities and prekeys, sessions, delivery credentials,
/// mailboxes, blobs), plus the live connection. The HTTP + WebSocket
/// implementation lives in HushRelayClient; tests use an in-memory one.
///
/// Files travel through `BlobTransfer`, which is not part of this: a
/// transport that has no blob store (a test double) simply does not conform,
/// and the messenger then says that files cannot be sent through it.
///
/// Every method throws `DeliveryFailure`, so the pipeline's retry rules
/// (401 re-authenticate, 422 never retry, 429 back off, 5xx retry) do not
/// depend on HTTP details.
public typealias RelayTransport = RelayAuthentication & KeyDirectory & CredentialRegistry & Mailbox & LiveChannel
