import HushCrypto
import HushProtocol
import HushStore

/// What every part of the messenger works with.
///
/// The parts (`Outbox`, `Inbox`, `Contacts`, ...) are non-Sendable classes
/// that the `Messenger` actor creates and calls only from its own isolation:
/// their async methods take the caller's isolation (`#isolation`), so they
/// share the store, which is confined to one actor, without locks or hops.
struct MessengerDependencies {
    let identity: IdentityKeyPair
    let store: MessageStore
    let transport: any RelayTransport
    /// The relay's blob store, when the transport has one (files need it).
    var blobs: (any BlobTransfer)? { transport as? any BlobTransfer }

    /// The relay's blob store, or why files cannot travel through this transport.
    func requireBlobs() throws -> any BlobTransfer {
        guard let blobs else {
            throw MessengerError.attachmentUnavailable("this relay connection has no blob store, so files cannot be sent or fetched through it")
        }
        return blobs
    }
    let clock: any TimeSource
    let random: any RandomSource
    let events: MessengerEventHub

    /// Publishes `event` once the transaction it belongs to has committed
    /// (at once outside a transaction): a rolled-back receive must not have
    /// told a chat screen, `hush listen` or a hook about what was never stored.
    func emit(_ event: MessengerEvent) {
        let events = self.events
        store.afterCommit { events.publish(event) }
    }

    /// The contact named `name`, or `unknownContact`.
    func contact(named name: String) throws -> Contact {
        guard let contact = try store.contacts.contact(named: name) else { throw MessengerError.unknownContact(name) }
        return contact
    }

    /// The conversation with `contact`, created when missing.
    func conversation(with contact: Contact) throws -> Int64 {
        try store.conversations.conversation(forContact: contact.id, title: contact.name, at: clock.now())
    }

    func loadSession(contactId: Int64) throws -> Session {
        guard let state = try store.sessions.load(contactId: contactId) else {
            throw MessengerError.missingLocalState("no session with this contact: remove and add the contact again")
        }
        return try Session(serialized: state)
    }
}
