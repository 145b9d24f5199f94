import HushCrypto
import HushProtocol
import HushStore

/// Device lists between accounts (docs/PROTOCOL.md §20.11): ours, sent to
/// every contact when it changes; theirs, held per contact and shown by
/// `hush verify` with its fingerprint (§20.4).
extension Messenger {
    private func contact(named name: String) throws -> Contact {
        guard let contact = try store.contacts.contact(named: name) else { throw MessengerError.unknownContact(name) }
        return contact
    }

    /// Seals our current device list for every accepted contact that lacks
    /// it (after a link or a revocation), in one transaction; then posts the
    /// outbox. Contacts added later get it with the first thing sealed to
    /// them. Returns how many it was queued for now.
    @discardableResult
    public func announceDeviceList() async throws -> Int {
        let queued = try store.write { store in
            var queued = 0
            for contact in try store.contacts.all() where try sealer.handOverDeviceList(to: contact) { queued += 1 }
            // And to our other devices, on the sessions with them (§20.14).
            try sealer.deviceFanOut.own.handOverLists()
            return queued
        }
        await outgoing.flush()
        return queued
    }

    /// When the account's list held here revoked this device (§20.14), in
    /// milliseconds since 1970; nil while it is active (or the account has
    /// no list).
    public func thisDeviceRevokedAt() throws -> UInt64? {
        try sealer.dependencies.thisDeviceRevokedAt()
    }

    /// The recovery key a revocation made, here or on another device of the
    /// account that handed it over (docs/PROTOCOL.md §20.14), with the
    /// counter of the list that revoked; nil when none did (the keystore's
    /// key is the account's).
    public func keptRecoveryKey() throws -> (listCounter: UInt64, key: SecureBytes)? {
        try store.recoveryKeys.current()
    }

    /// After a revocation (docs/PROTOCOL.md §20.14): every small group this
    /// account is an admin of gets a new state, the same members under a new
    /// epoch and secret, so the revoked device (which holds the old secret
    /// and chains) opens nothing sealed after it: the state goes to every
    /// member and to our other devices, after the list that revokes it, and
    /// each remaining device makes a new chain. For every other small group
    /// it is in, an admin is asked to do the same (a rekey request, after
    /// the list). Returns how many groups were given a new state, how many
    /// were asked for, and the names of those that could not be (each group
    /// in its own transaction: one that fails, such as a group that has
    /// used every epoch, leaves the others rekeyed).
    @discardableResult
    /// `asked` is nil when the requests could not be sealed (the new
    /// states are posted all the same).
    public func rekeyGroupsAfterRevocation() async throws -> (rekeyed: Int, asked: Int?, failed: [String]) {
        var rekeyed = 0, failed: [String] = []
        for name in try groups.administered() {
            do {
                try store.write { _ in try groups.rekey(name) }
                rekeyed += 1
            } catch {
                failed.append(name)
            }
        }
        let asked = try? store.write { _ in try groups.askAdminsToRekey() }.count
        await outgoing.flush()
        return (rekeyed, asked, failed)
    }

    /// The device list held of the contact `name` (the last one that
    /// verified, from the contact or its directory, §20.3); nil when there
    /// is none: an account of one device, or one whose list has not reached
    /// us yet.
    public func deviceList(ofContact name: String) throws -> DeviceList? {
        try deviceLists.held(of: contact(named: name))
    }

    /// Reads the directory of the contact `name` at the relay (§20.9) and
    /// adopts the list there if it is newer than the one held (announcing a
    /// change in the conversation); returns the list held afterwards.
    /// Throws when the relay cannot be asked, or holds a list that is
    /// refused (forged, un-revoking, another account's): the held one stays.
    public func refreshDeviceList(ofContact name: String) async throws -> DeviceList? {
        try await deviceLists.refresh(contact(named: name))
    }
}
