import HushMessenger
import HushProtocol

/// A transport that hands every call to `inner`: the bench's wrappers
/// (`CountingTransport`, `TimedTransport`) write only the calls they watch.
protocol ForwardingTransport: RelayTransport {
    var inner: any RelayTransport { get }
}

extension ForwardingTransport {
    func deposit(_ envelope: [UInt8], to recipient: IdentityKey, requestID: String,
                 credential: [UInt8]?) async throws(DeliveryFailure) -> DepositReceipt {
        try await inner.deposit(envelope, to: recipient, requestID: requestID, credential: credential)
    }
    func depositFanOut(_ envelope: [UInt8], requestID: String,
                       to recipients: [FanOutRecipient]) async throws(DeliveryFailure) -> [Result<DepositReceipt, DeliveryFailure>] {
        try await inner.depositFanOut(envelope, requestID: requestID, to: recipients)
    }
    func connect() async throws(DeliveryFailure) -> AsyncStream<TransportEvent> { try await inner.connect() }
    func authenticate(identity: IdentityKeyPair) async throws(DeliveryFailure) { try await inner.authenticate(identity: identity) }
    var sessionToken: SessionToken? { inner.sessionToken }
    func resume(_ token: SessionToken, identity: IdentityKeyPair) { inner.resume(token, identity: identity) }
    func register(identity: IdentityKeyPair, signedPrekey: SignedPrekey, lastResortKEMPrekey: SignedPrekey,
                  oneTimePrekeys: [SignedPrekey]) async throws(DeliveryFailure) -> Int64 {
        try await inner.register(identity: identity, signedPrekey: signedPrekey, lastResortKEMPrekey: lastResortKEMPrekey,
                                 oneTimePrekeys: oneTimePrekeys)
    }
    func uploadPrekeys(_ prekeys: [SignedPrekey]) async throws(DeliveryFailure) -> (x25519: Int, kem: Int) {
        try await inner.uploadPrekeys(prekeys)
    }
    func prekeyCounts() async throws(DeliveryFailure) -> (x25519: Int, kem: Int, registration: HeldRegistration?) { try await inner.prekeyCounts() }
    func fetchBundle(for identity: IdentityKey) async throws(DeliveryFailure) -> PrekeyBundle { try await inner.fetchBundle(for: identity) }
    func updateDeliveryCredentials(add tokens: [[UInt8]], remove revoked: [[UInt8]]) async throws(DeliveryFailure) {
        try await inner.updateDeliveryCredentials(add: tokens, remove: revoked)
    }
    func fetch(after serverID: Int64, limit: Int) async throws(DeliveryFailure) -> MailboxPage { try await inner.fetch(after: serverID, limit: limit) }
    func acknowledge(_ serverIDs: [Int64]) async throws(DeliveryFailure) { try await inner.acknowledge(serverIDs) }
    func sendEphemeral(_ envelope: [UInt8], to recipient: IdentityKey, credential: [UInt8]) async throws(DeliveryFailure) {
        try await inner.sendEphemeral(envelope, to: recipient, credential: credential)
    }
}
