import HushDatabase

/// When each field of a contact last changed (store version 33), which
/// orders the contact records the account's devices send each other
/// (docs/PROTOCOL.md §20.16): the newest change of each field wins. Also
/// the removals remembered, so that an older record does not add a removed
/// contact back.
public struct ContactChangeTimes: Sendable, Equatable {
    public var standing: Milliseconds
    public var verification: Milliseconds
    public var name: Milliseconds

    public init(standing: Milliseconds, verification: Milliseconds, name: Milliseconds) {
        self.standing = standing
        self.verification = verification
        self.name = name
    }

    /// Every field changed at `time`.
    public static func all(_ time: Milliseconds) -> ContactChangeTimes { ContactChangeTimes(standing: time, verification: time, name: time) }

    /// The latest of the three.
    public var latest: Milliseconds { max(standing, verification, name) }

    /// The first time after `time` (the latest time stays the latest: a
    /// record from a device whose clock ran far ahead is not outrun).
    public static func after(_ time: Milliseconds) -> Milliseconds { time == .max ? .max : time + 1 }

    /// How far ahead of this device's clock a time from another device of
    /// the account is taken: a day. Beyond it, it counts as a day ahead, so
    /// one device whose clock ran wild cannot stamp a change no later
    /// change can follow.
    public static let aheadAllowance: Milliseconds = 86_400_000

    /// A time another device of the account sent, as this device keeps it.
    public static func received(_ time: UInt64, now: Milliseconds) -> Milliseconds {
        min(Milliseconds(clamping: time), now > .max - aheadAllowance ? .max : now + aheadAllowance)
    }
}

extension ContactRepository {
    public func changeTimes(contactId: Int64) throws -> ContactChangeTimes? {
        try database.queryFirst("SELECT standing_changed_at, verification_changed_at, name_changed_at FROM contacts WHERE id = ?",
                                [contactId]) { ContactChangeTimes(standing: try $0.get(0), verification: try $0.get(1), name: try $0.get(2)) }
    }

    public func setChangeTimes(_ times: ContactChangeTimes, contactId: Int64) throws {
        try database.execute("UPDATE contacts SET standing_changed_at = ?, verification_changed_at = ?, name_changed_at = ? WHERE id = ?",
                             [times.standing, times.verification, times.name, contactId])
    }

    /// Every accepted or blocked contact with when its fields last changed,
    /// in id order: what the account's other devices are given. Message
    /// requests are each device's own.
    public func decided() throws -> [(contact: Contact, times: ContactChangeTimes)] {
        try database.query("""
            SELECT \(Self.columns), standing_changed_at, verification_changed_at, name_changed_at FROM contacts
            WHERE standing IN ('accepted', 'blocked') ORDER BY id
            """, []) { row in
            (try decode(row), ContactChangeTimes(standing: try row.get(9), verification: try row.get(10), name: try row.get(11)))
        }
    }

    /// The contact whose changed key, waiting for the user's decision, is `key`.
    public func contact(pendingIdentityKey key: [UInt8]) throws -> Contact? {
        try database.queryFirst("SELECT \(Self.columns) FROM contacts WHERE pending_identity_key = ?", [key], decode)
    }

    // MARK: Removals

    /// When the contact with `key` was removed (nil: it was not, or was added since).
    public func removedAt(identityKey key: [UInt8]) throws -> Milliseconds? {
        try database.queryFirst("SELECT changed_at FROM removed_contacts WHERE identity_key = ? AND replaced = 0", [key]) { try $0.get(0) }
    }

    /// Whether `key` is the old key of a contact whose changed key the user accepted here.
    public func wasReplaced(identityKey key: [UInt8]) throws -> Bool {
        try database.queryFirst("SELECT 1 FROM removed_contacts WHERE identity_key = ? AND replaced = 1", [key]) { _ in true } ?? false
    }

    /// Remembers that the contact with `key` was removed at `time` (kept
    /// when later than a removal remembered before); `sent`: our other
    /// devices need not be told (they told us).
    public func recordRemoval(identityKey key: [UInt8], at time: Milliseconds, sent: Bool) throws {
        try database.execute("UPDATE removed_contacts SET changed_at = ?, sent = ? WHERE identity_key = ? AND changed_at < ? AND replaced = 0",
                             [time, sent ? 1 : 0, key, time])
        try database.execute("INSERT OR IGNORE INTO removed_contacts(identity_key, changed_at, sent) VALUES (?, ?, ?)", [key, time, sent ? 1 : 0])
    }

    /// Remembers `key` as a contact's old key, replaced here at `time`.
    public func recordReplacement(identityKey key: [UInt8], at time: Milliseconds) throws {
        try database.execute("INSERT OR REPLACE INTO removed_contacts(identity_key, changed_at, sent, replaced) VALUES (?, ?, 1, 1)", [key, time])
    }

    /// Forgets the removal of `key`: the contact was added again.
    public func forgetRemoval(identityKey key: [UInt8]) throws {
        try database.execute("DELETE FROM removed_contacts WHERE identity_key = ?", [key])
    }

    /// Every removal remembered (not replaced keys), with `sent`, oldest first.
    public func removals() throws -> [(identityKey: [UInt8], changedAt: Milliseconds, sent: Bool)] {
        try database.query("SELECT identity_key, changed_at, sent FROM removed_contacts WHERE replaced = 0 ORDER BY changed_at", []) { row in
            (try row.get(0), try row.get(1), try row.get(2, as: Int64.self) != 0)
        }
    }

    /// Whether a removal waits to be sealed to our other devices.
    public func hasUnsentRemovals() throws -> Bool {
        try database.queryFirst("SELECT 1 FROM removed_contacts WHERE sent = 0 LIMIT 1", []) { _ in true } ?? false
    }

    /// Marks every removal as sealed to our other devices.
    public func markRemovalsSent() throws {
        try database.execute("UPDATE removed_contacts SET sent = 1 WHERE sent = 0")
    }
}
