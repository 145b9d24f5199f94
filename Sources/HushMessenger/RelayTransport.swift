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

/// The relay as the pipeline needs it. The HTTP + WebSocket implementation
/// lives in HushRelayClient; tests use an in-memory one.
///
/// Every method throws `DeliveryFailure`, so the pipeline's retry rules
/// (401 re-authenticate, 422 never retry, 429 back off, 5xx retry) do not
/// depend on HTTP details.
public protocol RelayTransport: Sendable {
    /// Obtains a fresh session token (challenge signed by the identity key).
    func authenticate(identity: IdentityKeyPair) async throws(DeliveryFailure)
    /// The session token in use, so a later run can resume it instead of
    /// logging in again (nil when there is none, or the transport keeps none).
    var sessionToken: SessionToken? { get }
    /// Uses a token `identity` obtained in an earlier run.
    func resume(_ token: SessionToken, identity: IdentityKeyPair)
    /// Publishes the identity with its prekeys (proof of possession inside).
    func register(identity: IdentityKeyPair, signedPrekey: SignedPrekey, lastResortKEMPrekey: SignedPrekey,
                  oneTimePrekeys: [SignedPrekey]) async throws(DeliveryFailure)
    /// Adds one-time prekeys; returns how many X25519 and KEM ones remain.
    func uploadPrekeys(_ prekeys: [SignedPrekey]) async throws(DeliveryFailure) -> (x25519: Int, kem: Int)
    /// How many one-time prekeys of each kind the relay still holds for us.
    func prekeyCounts() async throws(DeliveryFailure) -> (x25519: Int, kem: Int)
    /// Fetches a bundle (consuming one-time prekeys at the relay).
    func fetchBundle(for identity: IdentityKey) async throws(DeliveryFailure) -> PrekeyBundle
    /// Registers the hashes of delivery credentials we hand to contacts and
    /// withdraws those we replaced (after blocking someone who held one).
    func updateDeliveryCredentials(add tokens: [[UInt8]], remove revoked: [[UInt8]]) async throws(DeliveryFailure)
    /// Deposits a sealed envelope, idempotent on `requestID`.
    func deposit(_ envelope: [UInt8], to recipient: IdentityKey, requestID: String,
                 credential: [UInt8]?) async throws(DeliveryFailure) -> DepositReceipt
    /// Deposits one sealed envelope (a group message, encrypted once) for
    /// every recipient, idempotent on `requestID` per mailbox. One result per
    /// recipient, in order: a recipient the relay refuses fails alone.
    /// Throws only when the request fails as a whole (the relay unreachable,
    /// 5xx, the request rate-limited).
    func depositFanOut(_ envelope: [UInt8], requestID: String,
                       to recipients: [FanOutRecipient]) async throws(DeliveryFailure) -> [Result<DepositReceipt, DeliveryFailure>]
    /// Envelopes after `serverID` (exclusive), oldest first.
    func fetch(after serverID: Int64, limit: Int) async throws(DeliveryFailure) -> MailboxPage
    /// Tells the relay it may delete these envelopes (we have stored them).
    func acknowledge(_ serverIDs: [Int64]) async throws(DeliveryFailure)
    /// Opens the live connection; events arrive until `.disconnected`.
    func connect() async throws(DeliveryFailure) -> AsyncStream<TransportEvent>
    /// Sends an ephemeral envelope over the live connection (dropped when the recipient is offline).
    func sendEphemeral(_ envelope: [UInt8], to recipient: IdentityKey, credential: [UInt8]) async throws(DeliveryFailure)
    /// Starts a resumable upload of a `length`-byte blob with our session; returns its id.
    func startBlobUpload(length: Int64) async throws(DeliveryFailure) -> String
    /// Sends the next part of upload `id` from the encrypted blob in the file
    /// at `path`: from the first byte the relay lacks, at most `segmentBytes`.
    /// `progress` hears the file position reached.
    func continueBlobUpload(id: String, file path: String, length: Int64, segmentBytes: Int64,
                            progress: @escaping @Sendable (Int64) -> Void) async throws(DeliveryFailure) -> BlobUploadStep
    /// Streams blob `id` from byte `offset` on (at most `maxBytes` in all) to
    /// `sink`. A failure of the relay is a `DeliveryFailure`; anything else is what `sink` threw.
    func downloadBlob(id: String, from offset: Int64, maxBytes: Int64, into sink: any BlobSink) async throws
}

/// Where an upload stands after one part: how many bytes the relay holds,
/// and the blob's id once it holds them all.
public struct BlobUploadStep: Sendable, Equatable {
    public let received: Int64
    public let blobID: String?

    public init(received: Int64, blobID: String?) {
        self.received = received
        self.blobID = blobID
    }
}

/// Where a downloaded blob's bytes go, in order. One download uses it at a time.
public protocol BlobSink: AnyObject, Sendable {
    func write(_ bytes: [UInt8]) throws
    /// The same, with the bytes lent in place (the transport's own buffer,
    /// valid only during the call): no array per piece.
    func write(contentsOf bytes: UnsafeRawBufferPointer) throws
}

extension BlobSink {
    public func write(contentsOf bytes: UnsafeRawBufferPointer) throws { try write(Array(bytes)) }
}

/// A relay session token and when the relay said it expires (its clock, ms).
public struct SessionToken: Sendable, Equatable {
    public let token: String
    public let expiresAt: Int64

    public init(token: String, expiresAt: Int64) {
        self.token = token
        self.expiresAt = expiresAt
    }
}

extension RelayTransport {
    public var sessionToken: SessionToken? { nil }
    /// Transports without blobs (test doubles written before attachments) refuse them.
    public func startBlobUpload(length: Int64) async throws(DeliveryFailure) -> String {
        throw .rejected(status: 501, code: "this transport has no blobs")
    }
    public func continueBlobUpload(id: String, file path: String, length: Int64, segmentBytes: Int64,
                                   progress: @escaping @Sendable (Int64) -> Void) async throws(DeliveryFailure) -> BlobUploadStep {
        throw .rejected(status: 501, code: "this transport has no blobs")
    }
    public func downloadBlob(id: String, from offset: Int64, maxBytes: Int64, into sink: any BlobSink) async throws {
        throw DeliveryFailure.rejected(status: 501, code: "this transport has no blobs")
    }
    public func resume(_ token: SessionToken, identity: IdentityKeyPair) {}

    /// One `deposit` per recipient, in order (transports without a fan-out,
    /// such as test doubles). A failure that concerns the relay rather than
    /// the recipient (unreachable, a login needed) throws, as a whole
    /// fan-out request would; the recipients already deposited stay
    /// deposited, and the same request id repeats them harmlessly.
    public func depositFanOut(_ envelope: [UInt8], requestID: String,
                              to recipients: [FanOutRecipient]) async throws(DeliveryFailure) -> [Result<DepositReceipt, DeliveryFailure>] {
        var results: [Result<DepositReceipt, DeliveryFailure>] = []
        results.reserveCapacity(recipients.count)
        for recipient in recipients {
            do {
                results.append(.success(try await deposit(envelope, to: recipient.key, requestID: requestID, credential: recipient.credential)))
            } catch {
                switch error {
                case .unavailable, .unauthorized: throw error
                default: results.append(.failure(error))
                }
            }
        }
        return results
    }
}
