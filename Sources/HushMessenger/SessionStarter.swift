import HushCrypto
import HushProtocol
import HushStore

/// Starts pairwise sessions from the relay's prekey bundles: for a contact
/// being added (or whose changed key was accepted), and for a group member
/// we never wrote to, before `GroupDeliveries` seals to them.
final class SessionStarter {
    private let dependencies: MessengerDependencies
    private var store: MessageStore { dependencies.store }

    init(_ dependencies: MessengerDependencies) {
        self.dependencies = dependencies
    }

    /// The contact of a group member, with a session: one is started from the
    /// relay's bundle when we never wrote to them (`GroupStateAdoption` made the contact).
    func contactWithSession(isolation: isolated (any Actor)? = #isolation, for key: IdentityKey) async throws -> Contact {
        guard let contact = try store.contacts.contact(identityKey: key.rawRepresentation) else {
            throw MessengerError.unknownContact(key.address.description)
        }
        // A retired account key gets no new session (§20.14): its devices' start after the pass.
        if try store.sessions.load(contactId: contact.id) != nil || dependencies.accountKeyRetired(contact) { return contact }
        let session = try await start(with: key.address)
        let now = dependencies.clock.now()
        try store.withinWrite { store in
            // Another process may have started one meanwhile: keep theirs.
            guard try store.sessions.load(contactId: contact.id) == nil else { return }
            _ = try store.conversations.conversation(forContact: contact.id, title: contact.name, at: now)
            try store.sessions.save(state: session.serialized(), contactId: contact.id, at: now)
        }
        return contact
    }

    /// Fetches, verifies and uses a bundle for `address`.
    func start(isolation: isolated (any Actor)? = #isolation, with address: HushAddress) async throws -> Session {
        // Bundles are public: fetched without logging in, so the relay does not
        // learn which identity looks up whom (its contact list).
        let bundle: PrekeyBundle
        do { bundle = try await dependencies.transport.fetchBundle(for: address.identityKey) } catch { throw MessengerError.relay(error) }
        do {
            if let device = dependencies.device {
                // A linked device's session is its own (§20.10): its key, with the account's certificate.
                return try Session.initiate(device: device.keyPair, certificate: device.certificate, to: address.identityKey.signingKey,
                                            bundle: bundle, using: dependencies.random)
            }
            return try Session.initiate(identity: dependencies.identity, to: address, bundle: bundle, using: dependencies.random)
        } catch {
            throw MessengerError.protocolFailure("the relay's bundle for \(address) was refused: \(error.description)")
        }
    }
}
