import HushCrypto
import HushProtocol
import HushStore

/// The device list held of each contact (docs/PROTOCOL.md §20.3: one per
/// account, the last accepted). A list arrives from the contact (content
/// 0x13, §20.11) or from its directory at the relay (§20.9); either way it
/// is checked against the one held, kept in its place, and a change of the
/// devices is announced in the conversation (§20.4), as a changed safety
/// number is.
final class ContactDeviceLists {
    private let dependencies: MessengerDependencies
    private var store: MessageStore { dependencies.store }
    /// Contacts whose directory is to be read after this pass, marked where
    /// a mark in the store would be rolled back (an envelope deferred).
    private var pending: Set<Int64> = []

    init(_ dependencies: MessengerDependencies) {
        self.dependencies = dependencies
    }

    /// Where a list came from: the envelope that carried it, or the directory.
    enum Source {
        case content(Content, MailboxEnvelope)
        case directory
    }

    /// The list held of `contact`.
    func held(of contact: Contact) throws -> DeviceList? {
        try dependencies.heldDeviceList(of: contact)
    }

    /// Checks `bytes` against the list held of `contact` and keeps it when
    /// it verifies. `notNewer` (a late or replayed older list, or a relay
    /// that lags) and `signerNotActive` (signed by a device linked after the
    /// list held, in a list missed here) keep the held list and are not
    /// errors; the second marks the contact for a look at its directory,
    /// which holds the latest list (§20.11). Any other refusal throws, with
    /// the reason. Joins the caller's transaction.
    func adopt(_ bytes: [UInt8], from contact: Contact, source: Source) throws {
        let account = try IdentityKey(rawRepresentation: contact.identityKey)
        let held = try held(of: contact)
        let outcome: DeviceListVerifier.Outcome
        do throws(ProtocolError) {
            outcome = try DeviceListVerifier(account: account, current: held).check(bytes)
        } catch .deviceListRefused(.notNewer) {
            return
        } catch .deviceListRefused(.signerNotActive) {
            if case .content = source { try store.contacts.setDeviceListStale(true, contactId: contact.id) }
            return
        } catch {
            let from = if case .content = source { "sent" } else { "has in its directory" }
            throw MessengerError.protocolFailure("\(contact.name) \(from) a device list that is refused: \(error.description)")
        }
        guard case let .accepted(change) = outcome else { return }
        // A counter the contact chose: past what the store keeps (a signed 64-bit integer, as the relay's
        // directory), keeping it would fail as if our database had, and the envelope would never be acknowledged.
        guard change.list.counter <= UInt64(Int64.max) else {
            throw MessengerError.protocolFailure("\(contact.name) sent a device list whose counter is beyond 2^63 − 1, which this client does not keep")
        }
        let now = dependencies.clock.now()
        try store.contactDeviceLists.keep(bytes, counter: change.list.counter, contactId: contact.id, at: now)
        // §20.14: the sessions with a revoked device end; nothing more is sealed to it.
        for revoked in change.revoked {
            try store.deviceSessions.end(contactId: contact.id, deviceKey: revoked.key.rawRepresentation)
            // What waits for it, sealed before the list came, goes nowhere (the other devices have their copies).
            try RetiredAccountKey(dependencies).dropQueued(for: revoked.key.rawRepresentation)
        }
        // The device that kept the account key revoked: the account key's session ends with it, and
        // what is sealed from now on goes to the account's other devices (`PrimarySession`).
        if change.list.retiresAccountKey {
            try store.sessions.delete(contactId: contact.id)
            // What was queued for the account key before this list came goes elsewhere, or nowhere.
            if held?.retiresAccountKey != true { try RetiredAccountKey(dependencies).redirectQueued(for: contact) }
        }
        guard let text = DeviceListNotice.text(for: change, first: held == nil) else { return }
        let conversation = try dependencies.conversation(with: contact)
        var notice = NewMessage(conversationId: conversation, clientMessageId: MessageID.random(using: dependencies.random).description,
                                direction: .incoming, sender: contact.address, body: text, contentType: DeviceListNotice.contentType,
                                status: .delivered, createdAt: now)
        // From the directory: no envelope numbered it, so it is placed by its time.
        notice.isLocalNotice = true
        if case let .content(content, envelope) = source {
            // The content's id: a second copy of the envelope announces nothing twice.
            (notice.clientMessageId, notice.serverId, notice.relayTimestamp) = (content.id.description, envelope.serverID, envelope.relayTimestamp)
        }
        // No receipt: the notice is this client's, not a message the contact wrote.
        guard case let .inserted(id) = try store.messages.insert(notice), let stored = try store.messages.message(id: id) else { return }
        try dependencies.emit(contact.standing == .accepted ? .received(stored, contact: contact.name)
                                                            : .request(stored, contact: contact.name, contactID: contact.id))
    }

    /// Reads `contact`'s directory and adopts the list there (a contact
    /// just added, one marked by `adopt`, or one the user is about to
    /// verify). The relay is asked without logging in, as for bundles.
    /// Returns the list held afterwards. A relay without directories, or
    /// one that holds none for the account, leaves the held list as it is.
    @discardableResult
    func refresh(isolation: isolated (any Actor)? = #isolation, _ contact: Contact) async throws -> DeviceList? {
        guard let directory = dependencies.directory else { return try held(of: contact) }
        let account = try IdentityKey(rawRepresentation: contact.identityKey)
        let list: DeviceList?
        do { list = try await directory.deviceList(of: account) } catch { throw MessengerError.relay(error) }
        try store.withinWrite { store in
            if let list { try adopt(list.encoded, from: contact, source: .directory) }
            try store.contacts.setDeviceListStale(false, contactId: contact.id)
        }
        return try held(of: contact)
    }

    /// Marks `contact` for a look at its directory after this pass, in
    /// memory: for an envelope from one of its devices that the held list
    /// does not name, deferred (its transaction rolled back).
    func needsRefresh(_ contact: Contact) {
        pending.insert(contact.id)
    }

    /// `refresh` for every contact `adopt` or `needsRefresh` marked; best
    /// effort (a contact whose directory cannot be read now stays marked in
    /// the store for the next pass; one marked in memory, until the
    /// deferred envelope marks it again at the next).
    func refreshStale(isolation: isolated (any Actor)? = #isolation) async {
        var stale = (try? store.contacts.withStaleDeviceList()) ?? []
        let marked = pending
        pending.removeAll()
        for id in marked where !stale.contains(where: { $0.id == id }) {
            if let contact = try? store.contacts.contact(id: id) { stale.append(contact) }
        }
        for contact in stale { _ = try? await refresh(contact) }
    }
}
