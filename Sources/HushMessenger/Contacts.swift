import HushCrypto
import HushProtocol
import HushStore

/// Contacts: adding one from its address (fetching its bundle and starting a
/// session), identity-key changes, safety numbers and verification, removal,
/// and the contact a stranger who writes first is filed under.
final class Contacts {
    private let dependencies: MessengerDependencies
    private let requests: MessageRequests
    private let sessions: SessionStarter
    private let deviceLists: ContactDeviceLists
    /// What the user changes here goes to our other devices (§20.16).
    private let records: OwnContactRecords
    private var store: MessageStore { dependencies.store }

    /// The name prefix of contacts created for strangers who wrote first.
    static let unknownContactPrefix = "unknown-"

    /// The most message requests that wait at once (see `contactForSender`).
    let maxPendingRequests: Int

    init(_ dependencies: MessengerDependencies, requests: MessageRequests, sessions: SessionStarter, deviceLists: ContactDeviceLists,
         records: OwnContactRecords, maxPendingRequests: Int) {
        self.dependencies = dependencies
        self.records = records
        self.requests = requests
        self.sessions = sessions
        self.deviceLists = deviceLists
        self.maxPendingRequests = max(1, maxPendingRequests)
    }

    /// Adds a contact from its address: fetches and verifies its bundle and
    /// starts a session. When `name` already names a contact with a different
    /// identity key, the new key is recorded as pending and sending to that
    /// contact is blocked until `acceptIdentityChange`.
    func add(isolation: isolated (any Actor)? = #isolation, name: String, address text: String) async throws -> Contact {
        let address: HushAddress
        do { address = try HushAddress(parsing: text) } catch { throw MessengerError.invalidAddress(error.description) }
        guard address.identityKey != dependencies.identity.publicKey else { throw MessengerError.ownAddress }
        if let existing = try store.contacts.contact(named: name) {
            let known = try IdentityKey(rawRepresentation: existing.identityKey)
            switch IdentityKeyChange.check(known: known, presented: address.identityKey) {
            case .unchanged, .firstUse:
                guard existing.pendingIdentityKey != nil else { return existing }
                // The address the contact had, while a change waits: the user keeps it. A change
                // recorded from a mistyped address could otherwise only be accepted (the wrong
                // person) or undone by removing the contact with its conversation.
                try store.withinWrite { store in try store.contacts.discardPendingIdentityKey(contactId: existing.id) }
                return try store.contacts.contact(id: existing.id) ?? existing
            case .changed:
                // Never two contacts with one identity key: the other's messages would be filed under this name.
                // (A stranger's request under that key, bob reinstalled and writing first, is not a contact yet.)
                if let holder = try contact(forIdentity: address.identityKey), holder.id != existing.id, holder.standing != .requested,
                   !holder.name.hasPrefix(Self.unknownContactPrefix) {
                    throw MessengerError.addressIsContact(holder: holder.name)
                }
                try store.withinWrite { store in
                    try store.contacts.recordChangedIdentityKey(address.identityKey.rawRepresentation, contactId: existing.id)
                }
                throw MessengerError.identityChanged(name: name)
            }
        }
        if let other = try contact(forIdentity: address.identityKey) {
            // Someone who wrote first was filed under "unknown-…" as a message
            // request: adding them accepts it under the chosen name and keeps
            // the session their first message started.
            if other.standing == .blocked { throw MessengerError.contactBlocked(name: other.name) }
            if other.standing == .requested { return try await requests.accept(name: other.name, renameTo: name) }
            guard other.name.hasPrefix(Self.unknownContactPrefix) else { throw MessengerError.addressIsContact(holder: other.name) }
            try store.withinWrite { store in
                try store.contacts.rename(contactId: other.id, to: name)
                try records.announce(other, changed: .name)
            }
            return try store.contacts.contact(id: other.id) ?? other
        }
        let session = try await sessions.start(with: address)
        let now = dependencies.clock.now()
        let contact = try store.withinWrite { store in
            let contact = try store.contacts.add(name: name, address: address.description,
                                                 identityKey: address.identityKey.rawRepresentation, at: now)
            _ = try store.conversations.conversation(forContact: contact.id, title: name, at: now)
            try store.sessions.save(state: session.serialized(), contactId: contact.id, at: now)
            try records.announce(contact, changed: .all)
            return contact
        }
        // Whoever starts a conversation knows only the address: the account's
        // devices are in its directory (§20.9). Best effort: the contact is
        // added either way, and its list also comes with what it sends.
        _ = try? await deviceLists.refresh(contact)
        return contact
    }

    /// Accepts a contact's changed identity key: the new key replaces the old,
    /// the contact becomes unverified, and a new session starts.
    func acceptIdentityChange(isolation: isolated (any Actor)? = #isolation, name: String) async throws {
        let contact = try dependencies.contact(named: name)
        guard let pending = contact.pendingIdentityKey else { throw MessengerError.nothingToAccept(name: name) }
        let newKey = try IdentityKey(rawRepresentation: pending)
        let session = try await sessions.start(with: newKey.address)
        let now = dependencies.clock.now()
        try store.withinWrite { store in
            // The old key stays a replaced one here: no record from another device adds it back (§20.16).
            try store.contacts.recordReplacement(identityKey: contact.identityKey, at: now)
            try store.contacts.forgetRemoval(identityKey: pending)
            try store.contacts.acceptPendingIdentityKey(contactId: contact.id)
            try store.contacts.setAddress(newKey.address.description, contactId: contact.id)
            try store.sessions.save(state: session.serialized(), contactId: contact.id, at: now)
            try store.skippedKeys.trim(owner: contact.id, keepingNewest: 0)
        }
    }

    /// Starts a session, from the relay's bundle, with every accepted
    /// contact that has none: after a restore from a backup, which never
    /// holds ratchet state (docs/PROTOCOL.md §19.4). Returns how many started.
    func startMissingSessions(isolation: isolated (any Actor)? = #isolation) async throws -> Int {
        var started = 0
        for contact in try store.contacts.all() where contact.standing == .accepted && contact.pendingIdentityKey == nil {
            guard try store.sessions.load(contactId: contact.id) == nil, try !dependencies.accountKeyRetired(contact) else { continue }
            _ = try await sessions.contactWithSession(for: try IdentityKey(rawRepresentation: contact.identityKey))
            started += 1
        }
        return started
    }

    /// Removes the contact with its conversation, here and (§20.16) on our
    /// other devices. Joins the caller's transaction.
    func remove(name: String) throws {
        let contact = try dependencies.contact(named: name)
        let times = try store.contacts.changeTimes(contactId: contact.id) ?? .all(0)
        try store.contacts.remove(contactId: contact.id)
        try records.announceRemoval(of: contact, times: times)
    }

    /// The safety number with a contact (for its current identity key, or
    /// the pending one after a change, which is what the user must compare).
    func safetyNumber(with name: String) throws -> (number: SafetyNumber, contact: Contact) {
        let contact = try dependencies.contact(named: name)
        let remote = try IdentityKey(rawRepresentation: contact.pendingIdentityKey ?? contact.identityKey)
        return (SafetyNumber(local: dependencies.identity.publicKey, remote: remote), contact)
    }

    /// Marks the contact verified when `displayed` (digits read out, or the
    /// scanned code's digits) matches the safety number. Returns whether it did.
    func verify(name: String, displayed: String) throws -> Bool {
        let (number, contact) = try safetyNumber(with: name)
        guard contact.verification != .changed, number.matches(displayed: displayed) else { return false }
        try store.contacts.setVerification(.verified, contactId: contact.id)
        try records.announce(contact, changed: .verification)
        return true
    }

    func contact(forIdentity key: IdentityKey) throws -> Contact? {
        try store.contacts.contact(identityKey: key.rawRepresentation)
    }

    /// The contact this identity belongs to, created (named after its
    /// address) as a message request when a stranger writes first. Joins the
    /// caller's transaction.
    ///
    /// At most `maxPendingRequests` requests wait: past that, the request
    /// that has waited longest since its last message makes room (removed
    /// with its messages, and counted for `hush requests`). Strangers who
    /// paid the relay's proof of work can still fill the list, but not the
    /// disk, and a newcomer's request always gets in.
    func contactForSender(_ sender: IdentityKey, at time: Int64) throws -> Contact {
        if let contact = try contact(forIdentity: sender) { return contact }
        try makeRoomForARequest()
        let address = sender.address.description
        let name = try dependencies.freeContactName(from: Self.unknownContactPrefix + String(address.dropFirst(5).prefix(8)))
        let contact = try store.contacts.add(name: name, address: address, identityKey: sender.rawRepresentation,
                                             standing: .requested, at: time, decided: false)
        _ = try store.conversations.conversation(forContact: contact.id, title: name, at: time)
        return contact
    }

    private func makeRoomForARequest() throws {
        guard try store.contacts.pendingRequestCount() >= maxPendingRequests,
              let oldest = try store.contacts.leastRecentlyActiveRequest() else { return }
        try store.contacts.remove(contactId: oldest)
        let removed = Int(try store.settings.value(SettingsRepository.Name.requestsRemovedForRoom) ?? "") ?? 0
        try store.settings.set(SettingsRepository.Name.requestsRemovedForRoom, to: String(removed + 1))
    }

    /// Whether the contact gave us its delivery credential (so our deposits
    /// to it are not subject to the relay's stranger rate limit).
    func deliveryCredentialKnown(for name: String) throws -> Bool {
        try store.contacts.deliveryCredential(contactId: dependencies.contact(named: name).id) != nil
    }
}
