import HushProtocol
import HushRelayAPI

/// The transport of an identity that has no relay yet: every call fails with
/// `reason`, which says what to do (each front end words it for its users).
public struct NoRelayTransport: RelayTransport, BlobTransfer {
    private let failure: DeliveryFailure

    public init(reason: String = "no relay configured for this account") {
        failure = .rejected(status: 0, code: reason)
    }

    public func authenticate(identity: IdentityKeyPair) async throws(DeliveryFailure) { throw failure }
    public func register(identity: IdentityKeyPair, signedPrekey: SignedPrekey, lastResortKEMPrekey: SignedPrekey,
                         oneTimePrekeys: [SignedPrekey]) async throws(DeliveryFailure) -> Int64 { throw failure }
    public func uploadPrekeys(_ prekeys: [SignedPrekey]) async throws(DeliveryFailure) -> (x25519: Int, kem: Int) { throw failure }
    public func prekeyCounts() async throws(DeliveryFailure) -> (x25519: Int, kem: Int, registration: HeldRegistration?) { throw failure }
    public func fetchBundle(for identity: IdentityKey) async throws(DeliveryFailure) -> PrekeyBundle { throw failure }
    public func updateDeliveryCredentials(add tokens: [[UInt8]], remove revoked: [[UInt8]]) async throws(DeliveryFailure) { throw failure }
    public func deposit(_ envelope: [UInt8], to recipient: IdentityKey, requestID: String,
                        credential: [UInt8]?) async throws(DeliveryFailure) -> DepositReceipt { throw failure }
    public func fetch(after serverID: Int64, limit: Int) async throws(DeliveryFailure) -> MailboxPage { throw failure }
    public func acknowledge(_ serverIDs: [Int64]) async throws(DeliveryFailure) { throw failure }
    public func connect() async throws(DeliveryFailure) -> AsyncStream<TransportEvent> { throw failure }
    public func sendEphemeral(_ envelope: [UInt8], to recipient: IdentityKey, credential: [UInt8]) async throws(DeliveryFailure) { throw failure }
    public func startBlobUpload(length: Int64) async throws(DeliveryFailure) -> String { throw failure }
    public func continueBlobUpload(id: String, file path: String, length: Int64, segmentBytes: Int64,
                                   growing: GrowingUploadFile?,
                                   progress: @escaping @Sendable (Int64) -> Void) async throws(DeliveryFailure) -> BlobUploadStep { throw failure }
    public func downloadBlob(id: String, from offset: Int64, maxBytes: Int64, into sink: any BlobSink) async throws { throw failure }
}
