import HushCrypto
import HushProtocol
import HushStore

extension Messenger {
    /// Adds a contact from its address: fetches and verifies its bundle and
    /// starts a session. When `name` already names a contact with a different
    /// identity key, the new key is recorded as pending and sending to that
    /// contact is blocked until `acceptIdentityChange`.
    @discardableResult
    public func addContact(name: String, address text: String) async throws -> Contact {
        let address: HushAddress
        do { address = try HushAddress(parsing: text) } catch { throw MessengerError.invalidAddress(error.description) }
        guard address.identityKey != identity.publicKey else { throw MessengerError.ownAddress }
        let now = clock.now()
        if let existing = try store.contacts.contact(named: name) {
            let known = try IdentityKey(rawRepresentation: existing.identityKey)
            switch IdentityKeyChange.check(known: known, presented: address.identityKey) {
            case .unchanged, .firstUse:
                return existing
            case .changed:
                try store.write { store in
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
            if other.standing == .requested { return try await acceptRequest(name: other.name, renameTo: name) }
            guard other.name.hasPrefix(Messenger.unknownContactPrefix) else { throw MessengerError.contactExists(name: other.name) }
            try store.write { store in try store.contacts.rename(contactId: other.id, to: name) }
            return try store.contacts.contact(id: other.id) ?? other
        }
        let session = try await startSession(with: address)
        return try store.write { store in
            let contact = try store.contacts.add(name: name, address: address.description,
                                                 identityKey: address.identityKey.rawRepresentation, at: now)
            _ = try store.conversations.conversation(forContact: contact.id, title: name, at: now)
            try store.sessions.save(state: session.serialized(), contactId: contact.id, at: now)
            return contact
        }
    }

    /// Fetches, verifies and uses a bundle for `address`.
    func startSession(with address: HushAddress) async throws -> Session {
        // Bundles are public: fetched without logging in, so the relay does not
        // learn which identity looks up whom (its contact list).
        let bundle: PrekeyBundle
        do { bundle = try await transport.fetchBundle(for: address.identityKey) } catch { throw MessengerError.relay(error) }
        do {
            return try Session.initiate(identity: identity, to: address, bundle: bundle, using: random)
        } catch {
            throw MessengerError.protocolFailure("the relay's bundle for \(address) was refused: \(error.description)")
        }
    }

    /// Accepts a contact's changed identity key: the new key replaces the old,
    /// the contact becomes unverified, and a new session starts.
    public func acceptIdentityChange(name: String) async throws {
        guard let contact = try store.contacts.contact(named: name) else { throw MessengerError.unknownContact(name) }
        guard let pending = contact.pendingIdentityKey else { throw MessengerError.nothingToAccept(name: name) }
        let newKey = try IdentityKey(rawRepresentation: pending)
        let session = try await startSession(with: newKey.address)
        let now = clock.now()
        try store.write { store in
            try store.contacts.acceptPendingIdentityKey(contactId: contact.id)
            try store.contacts.setAddress(newKey.address.description, contactId: contact.id)
            try store.sessions.save(state: session.serialized(), contactId: contact.id, at: now)
            try store.skippedKeys.trim(contactId: contact.id, keepingNewest: 0)
        }
    }

    public func removeContact(name: String) throws {
        guard let contact = try store.contacts.contact(named: name) else { throw MessengerError.unknownContact(name) }
        try store.write { store in
            try store.contacts.remove(contactId: contact.id)
        }
    }

    /// The safety number with a contact (for its current identity key, or
    /// the pending one after a change, which is what the user must compare).
    public func safetyNumber(with name: String) throws -> (number: SafetyNumber, contact: Contact) {
        guard let contact = try store.contacts.contact(named: name) else { throw MessengerError.unknownContact(name) }
        let remote = try IdentityKey(rawRepresentation: contact.pendingIdentityKey ?? contact.identityKey)
        return (SafetyNumber(local: identity.publicKey, remote: remote), contact)
    }

    /// Marks the contact verified when `displayed` (digits read out, or the
    /// scanned code's digits) matches the safety number. Returns whether it did.
    public func verify(name: String, displayed: String) throws -> Bool {
        let (number, contact) = try safetyNumber(with: name)
        guard contact.verification != .changed, number.matches(displayed: displayed) else { return false }
        try store.write { store in try store.contacts.setVerification(.verified, contactId: contact.id) }
        return true
    }

    /// The name prefix of contacts created for strangers who wrote first.
    static let unknownContactPrefix = "unknown-"

    func contact(forIdentity key: IdentityKey) throws -> Contact? {
        try store.contacts.contact(identityKey: key.rawRepresentation)
    }
}

extension Messenger {
    /// Whether the contact gave us its delivery credential (so our deposits
    /// to it are not subject to the relay's stranger rate limit).
    public func deliveryCredentialKnown(for name: String) throws -> Bool {
        guard let contact = try store.contacts.contact(named: name) else { throw MessengerError.unknownContact(name) }
        return try store.contacts.deliveryCredential(contactId: contact.id) != nil
    }
}
