import HushProtocol
import HushStore

/// Contacts and message requests, as the CLI drives them.
extension Messenger {
    /// Adds a contact from its address (see `Contacts.add`); our other
    /// devices are told (§20.16), best effort now: what the relay did not
    /// take goes at the next flush.
    @discardableResult
    public func addContact(name: String, address text: String) async throws -> Contact {
        let contact = try await contactBook.add(name: name, address: text)
        // Sessions with the devices its directory names, now: the first message then reaches every
        // device of the account (§20.12), not only the one its account key stands for.
        if contact.standing == .accepted { await sealer.deviceFanOut.startMissingSessions(with: contact) }
        await outgoing.flush()
        return contact
    }

    /// Accepts a contact's changed identity key and starts a new session.
    public func acceptIdentityChange(name: String) async throws {
        try await contactBook.acceptIdentityChange(name: name)
    }

    /// Starts a session with every accepted contact that has none (after a
    /// restore from a backup); returns how many started. First, locally, a
    /// new sender chain for every group that has none, its distribution
    /// queued for the members (sealed on those sessions at the next flush);
    /// for a large group, whose chain cannot be made again, a new state
    /// asked of an admin (docs/PROTOCOL.md §18.4).
    ///
    /// A restored home registers first, unless the relay holds a
    /// registration made after its archive (`newerHomeRegistered`), which
    /// `replacingNewerHome` cuts off anyway.
    public func startMissingSessions(replacingNewerHome: Bool = false) async throws -> Int {
        try registration.requireNotKnownReplaced()
        // A restored home registers first, with prekeys of its own (§19.4): until then it uses no mailbox.
        if registration.isRestoredNotRegistered {
            if !replacingNewerHome { try await registration.requireNoNewerHome() }
            try await register(renewingPrekeys: true)
        }
        _ = try store.write { _ in
            _ = try groups.makeMissingOwnChains()
            try largeGroups.askForNewStates()
        }
        return try await contactBook.startMissingSessions()
    }

    /// Starts a session with every accepted contact that has none, and
    /// nothing else: a linked device's first sessions. Groups stay with the
    /// account's first device (docs/PROTOCOL.md §20.17), so no sender chain
    /// or new state is made here. Returns how many started.
    public func startMissingContactSessions() async throws -> Int {
        try await contactBook.startMissingSessions()
    }

    /// Removes the contact with its conversation; its attachments' files go
    /// too. Our other devices are told (§20.16), best effort now: what the
    /// relay did not take goes at the next flush.
    public func removeContact(name: String) async throws {
        try store.write { _ in try contactBook.remove(name: name) }
        attachmentSweep.sweep()
        await outgoing.flush()
    }

    /// The safety number with a contact (the pending key's after a change).
    public func safetyNumber(with name: String) throws -> (number: SafetyNumber, contact: Contact) {
        try contactBook.safetyNumber(with: name)
    }

    /// Marks the contact verified when `displayed` matches the safety
    /// number, and tells our other devices (§20.16; best effort now, as
    /// `removeContact`).
    public func verify(name: String, displayed: String) async throws -> Bool {
        guard try store.write({ _ in try contactBook.verify(name: name, displayed: displayed) }) else { return false }
        await outgoing.flush()
        return true
    }

    /// Whether the contact gave us its delivery credential.
    public func deliveryCredentialKnown(for name: String) throws -> Bool {
        try contactBook.deliveryCredentialKnown(for: name)
    }

    /// Pending requests (or, with `blocked`, the blocked contacts), newest first.
    public func messageRequests(blocked: Bool = false) throws -> [MessageRequest] {
        try requests.list(blocked: blocked)
    }

    /// How many message requests were removed to make room for newer ones
    /// (at most `defaultMaxMessageRequests` wait at once).
    public func messageRequestsRemovedForRoom() throws -> Int {
        Int(try store.settings.value(SettingsRepository.Name.requestsRemovedForRoom) ?? "") ?? 0
    }

    /// Accepts the request from `name` (or unblocks), optionally renaming them.
    @discardableResult
    public func acceptRequest(name: String, renameTo newName: String? = nil) async throws -> Contact {
        try await requests.accept(name: name, renameTo: newName)
    }

    /// Blocks `name`: their envelopes are dropped unread from now on.
    public func block(name: String) async throws {
        try await requests.block(name: name)
    }
}
