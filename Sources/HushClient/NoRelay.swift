import HushMessenger
import HushProtocol

/// The transport of an identity that has no relay yet: every call explains what to do.
struct NoRelay: RelayTransport {
    private var failure: DeliveryFailure { .rejected(status: 0, code: "no relay configured: run `hush register --relay URL`") }
    func authenticate(identity: IdentityKeyPair) async throws(DeliveryFailure) { throw failure }
    func register(identity: IdentityKeyPair, signedPrekey: SignedPrekey, lastResortKEMPrekey: SignedPrekey,
                  oneTimePrekeys: [SignedPrekey]) async throws(DeliveryFailure) { throw failure }
    func uploadPrekeys(_ prekeys: [SignedPrekey]) async throws(DeliveryFailure) -> (x25519: Int, kem: Int) { throw failure }
    func prekeyCounts() async throws(DeliveryFailure) -> (x25519: Int, kem: Int) { throw failure }
    func fetchBundle(for identity: IdentityKey) async throws(DeliveryFailure) -> PrekeyBundle { throw failure }
    func updateDeliveryCredentials(add tokens: [[UInt8]], remove revoked: [[UInt8]]) async throws(DeliveryFailure) { throw failure }
    func deposit(_ envelope: [UInt8], to recipient: IdentityKey, requestID: String,
                 credential: [UInt8]?) async throws(DeliveryFailure) -> DepositReceipt { throw failure }
    func fetch(after serverID: Int64, limit: Int) async throws(DeliveryFailure) -> MailboxPage { throw failure }
    func acknowledge(_ serverIDs: [Int64]) async throws(DeliveryFailure) { throw failure }
    func connect() async throws(DeliveryFailure) -> AsyncStream<TransportEvent> { throw failure }
    func sendEphemeral(_ envelope: [UInt8], to recipient: IdentityKey, credential: [UInt8]) async throws(DeliveryFailure) { throw failure }
}
