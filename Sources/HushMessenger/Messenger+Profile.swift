import HushProtocol
import HushStore

/// Our display name: chosen here, sent sealed to every accepted contact
/// (docs/PROTOCOL.md §10.4).
extension Messenger {
    /// `name` as a display name is kept and sent: trimmed, 1 to 64 bytes
    /// (what the profile content carries), or `invalidDisplayName`. The one
    /// rule for every way a name is set (account creation, `hush profile`).
    public static func checkedDisplayName(_ name: String) throws(MessengerError) -> String {
        let trimmed = name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard (1...ContentLimits.maxDisplayNameLength).contains(trimmed.utf8.count) else {
            throw .invalidDisplayName(limit: ContentLimits.maxDisplayNameLength)
        }
        return trimmed
    }

    /// The display name this account sends its contacts, if it has one.
    public func displayName() throws -> String? {
        try store.settings.value(SettingsRepository.Name.sharedDisplayName)
    }

    /// Sets the display name and seals it for every accepted contact whose
    /// identity key is not waiting for a decision and who lacks it, in one
    /// transaction; then posts the outbox. Contacts added later (and members
    /// a group introduced, with whom no session exists yet) get it with the
    /// first thing sealed to them. Returns how many it was queued for now.
    @discardableResult
    public func setDisplayName(_ name: String) async throws -> Int {
        let trimmed = try Self.checkedDisplayName(name)
        try registration.requireSealable()
        let queued = try store.write { store in
            try store.settings.set(SettingsRepository.Name.displayName, to: trimmed)
            try store.settings.set(SettingsRepository.Name.sharedDisplayName, to: trimmed)
            var queued = 0
            for contact in try store.contacts.all() where try sealer.handOverProfile(to: contact) { queued += 1 }
            return queued
        }
        await outgoing.flush()
        return queued
    }
}
