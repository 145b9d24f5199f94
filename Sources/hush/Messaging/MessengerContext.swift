import Foundation
import HushCrypto
import HushKeystore
import HushMessenger
import HushProtocol
import HushRelayClient
import HushStore

/// An unlocked identity with its store and relay: what every messaging
/// command starts from.
struct MessengerContext {
    let home: HomeContext
    let identity: IdentityKeyPair
    let messenger: Messenger
    let relayURL: String?

    /// Unlocks the keystore, opens the store and connects the pipeline to the
    /// relay recorded at `hush init --relay` (or `relayOverride`). Commands
    /// that only read local data pass `offline: true` and skip the HTTP stack
    /// (its event loop costs a one-shot command tens of milliseconds).
    static func open(_ options: GlobalOptions, relayOverride: String? = nil, offline: Bool = false) throws -> MessengerContext {
        let home = try HomeContext(options)
        let contents = try home.unlock()
        let store = try home.openStore(contents)
        let identity = try IdentityKeyPair(seed: contents.identitySeed)
        if let relayOverride { try store.settings.set(SettingsRepository.Name.relayURL, to: relayOverride) }
        let relayURL = try store.settings.value(SettingsRepository.Name.relayURL)
        let transport: any RelayTransport = offline ? NoRelay() : relayURL.map { RelayClientTransport(client: RelayClient(baseURL: $0)) } ?? NoRelay()
        let messenger = Messenger(identity: identity, store: store, transport: transport)
        return MessengerContext(home: home, identity: identity, messenger: messenger, relayURL: relayURL)
    }
}

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
