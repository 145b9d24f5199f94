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
    /// old one is handed the new one. Joins the caller's transaction.
    func replace() throws {
        guard let old = try own() else { return }
        let fresh = dependencies.random.bytes(ContentLimits.deliveryCredentialLength)
        let revoked = try revokedCredentials() + [old]
        try store.withinWrite { store in
            try store.settings.set(SettingsRepository.Name.revokedDeliveryCredentials, to: revoked.map(Hex.encode).joined(separator: ","))
            try store.settings.set(SettingsRepository.Name.deliveryCredential, to: Hex.encode(fresh))
            for contact in try store.contacts.all() where contact.standing == .accepted && contact.verification != .changed {
                guard try store.contacts.credentialSent(contactId: contact.id) != nil,
                      try store.sessions.load(contactId: contact.id) != nil else { continue }
                try handOver(to: contact)
            }
        }
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
