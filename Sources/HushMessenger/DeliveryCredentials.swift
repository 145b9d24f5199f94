import HushCrypto
import HushProtocol
import HushStore

/// Our delivery credential: the token contacts present when depositing to
/// us, so the relay's stranger rate limit does not apply to them, without
/// the relay learning which contact presents it. Handed to each accepted
/// contact once per credential, replaced after blocking someone who held it,
/// and registered (or withdrawn) at the relay.
final class DeliveryCredentials {
    private let dependencies: MessengerDependencies
    private let sealer: Sealer
    private let relay: RelaySession
    private var store: MessageStore { dependencies.store }

    init(_ dependencies: MessengerDependencies, sealer: Sealer, relay: RelaySession) {
        self.dependencies = dependencies
        self.sealer = sealer
        self.relay = relay
    }

    func own() throws -> [UInt8]? {
        try store.settings.value(SettingsRepository.Name.deliveryCredential).map { try Hex.decode($0) }
    }

    /// Registers our credential at the relay, creating it on first use.
    func register(isolation: isolated (any Actor)? = #isolation) async throws {
        let credential = try own() ?? {
            let token = dependencies.random.bytes(ContentLimits.deliveryCredentialLength)
            try store.withinWrite { store in try store.settings.set(SettingsRepository.Name.deliveryCredential, to: Hex.encode(token)) }
            return token
        }()
        let transport = dependencies.transport
        try await relay.call { () async throws(DeliveryFailure) in
            try await transport.updateDeliveryCredentials(add: [credential], remove: [])
        }
    }

    /// Seals our delivery credential for `contact` unless they already hold
    /// the current one (`Sealer.handOverCredential`, which every seal runs
    /// first as well). Called for everything received from a contact, so a
    /// changed credential reaches a contact with the next thing they send
    /// us. Joins the caller's transaction.
    func handOver(to contact: Contact) throws {
        try sealer.handOverCredential(to: contact)
    }

    /// A new own delivery credential; the old one is kept as revoked until
    /// the relay confirms its removal. Every accepted contact that held the
    /// old one is handed the new one, and so are our other devices, which
    /// register the same one (docs/PROTOCOL.md §20.16). Joins the caller's
    /// transaction.
    func replace() throws {
        guard let old = try own() else { return }
        let fresh = dependencies.random.bytes(ContentLimits.deliveryCredentialLength)
        try store.withinWrite { store in
            let changedAt = max(dependencies.clock.now(), ContactChangeTimes.after(try changedAt()))
            try take(fresh, replacing: old, at: changedAt)
            for contact in try store.contacts.all() where contact.standing == .accepted && contact.verification != .changed {
                guard try store.contacts.credentialSent(contactId: contact.id) != nil,
                      try PrimarySession.exists(for: contact, dependencies) else { continue }
                try handOver(to: contact)
            }
            guard let conversation = try store.conversations.newestLastingId() else { return }
            try sealer.deviceFanOut.own.sealToEveryDevice(try Self.ownDeviceContent(fresh, changedAt: changedAt, random: dependencies.random),
                                                          conversation: conversation)
        }
    }

    /// The credential another device of ours replaced ours with (§20.16),
    /// taken when it was replaced later than ours (a time more than a day
    /// ahead of our clock counts as a day ahead, so a device whose clock
    /// ran wild does not freeze the credential for good): ours is then revoked,
    /// and both are settled at the relay by `withdrawRevoked` (the next
    /// pass, or the settling of pushed envelopes). Contacts that hold ours
    /// are handed the new one with the next thing sealed to them. Joins the
    /// caller's transaction.
    func adoptFromOwnDevice(_ token: [UInt8], changedAt: UInt64) throws {
        guard let current = try own(), current != token else { return }
        let claimed = ContactChangeTimes.received(changedAt, now: dependencies.clock.now()), mine = try self.changedAt()
        // Replaced in the same millisecond on two devices: the bytewise lower token wins on both.
        guard claimed > mine || (claimed == mine && token.lexicographicallyPrecedes(current)) else { return }
        try take(token, replacing: current, at: claimed)
    }

    /// Makes `token` ours, replaced at `changedAt`, and keeps `old` as revoked.
    private func take(_ token: [UInt8], replacing old: [UInt8], at changedAt: Int64) throws {
        let revoked = try revokedCredentials() + [old]
        try store.settings.set(SettingsRepository.Name.revokedDeliveryCredentials, to: revoked.map(Hex.encode).joined(separator: ","))
        try store.settings.set(SettingsRepository.Name.deliveryCredential, to: Hex.encode(token))
        try store.settings.set(SettingsRepository.Name.deliveryCredentialChangedAt, to: String(changedAt))
    }

    /// Our current credential as a content for another device of ours on a
    /// new session (§20.16); nil when it was never replaced (a link copied it).
    static func handOverContent(_ dependencies: MessengerDependencies) throws -> [UInt8]? {
        let settings = dependencies.store.settings
        guard let current = try settings.value(SettingsRepository.Name.deliveryCredential).map({ try Hex.decode($0) }),
              let changedAt = try settings.value(SettingsRepository.Name.deliveryCredentialChangedAt).flatMap(Int64.init) else { return nil }
        return try ownDeviceContent(current, changedAt: changedAt, random: dependencies.random)
    }

    /// A delivery credential content for our own devices: its `sent at` is
    /// when the credential was replaced (§20.16), which orders them.
    private static func ownDeviceContent(_ token: [UInt8], changedAt: Int64, random: any RandomSource) throws -> [UInt8] {
        try Content(id: MessageID.random(using: random), sentAt: UInt64(clamping: changedAt), body: .deliveryCredential(token)).encoded()
    }

    private func changedAt() throws -> Int64 {
        try store.settings.value(SettingsRepository.Name.deliveryCredentialChangedAt).flatMap(Int64.init) ?? 0
    }

    /// Registers the current credential and withdraws the revoked ones at the
    /// relay; forgets the revoked ones once it confirmed.
    func withdrawRevoked(isolation: isolated (any Actor)? = #isolation) async throws {
        let revoked = try revokedCredentials()
        guard !revoked.isEmpty, let current = try own() else { return }
        let transport = dependencies.transport
        try await relay.call { () async throws(DeliveryFailure) in
            try await transport.updateDeliveryCredentials(add: [current], remove: revoked)
        }
        try store.withinWrite { store in
            // Only what was withdrawn: a block in between may have added more.
            let remaining = try revokedCredentials().filter { !revoked.contains($0) }
            try store.settings.set(SettingsRepository.Name.revokedDeliveryCredentials,
                                   to: remaining.isEmpty ? nil : remaining.map(Hex.encode).joined(separator: ","))
        }
    }

    private func revokedCredentials() throws -> [[UInt8]] {
        guard let value = try store.settings.value(SettingsRepository.Name.revokedDeliveryCredentials), !value.isEmpty else { return [] }
        return try value.split(separator: ",").map { try Hex.decode(String($0)) }
    }
}
