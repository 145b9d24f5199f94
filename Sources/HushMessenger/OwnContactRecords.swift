import HushCrypto
import HushProtocol
import HushStore

/// Our contacts on every device of the account (docs/PROTOCOL.md §20.16):
/// a contact added, named, accepted, blocked, verified or removed on one
/// device is sent to the others as a contact record, and every decided
/// contact goes to another device of ours once per session with it (a new
/// session, or one that existed before records did). Each field of a
/// record carries when it changed; a device keeps the newest of each, so
/// devices that changed one contact while apart converge. Message requests
/// stay each device's own until one is decided: every device receives the
/// stranger's messages anyway.
final class OwnContactRecords {
    /// Which fields of a contact the user just changed here.
    struct Change: OptionSet {
        let rawValue: Int
        static let standing = Change(rawValue: 1)
        static let verification = Change(rawValue: 2)
        static let name = Change(rawValue: 4)
        static let all: Change = [.standing, .verification, .name]
    }

    private let dependencies: MessengerDependencies
    private let own: OwnDevices
    private var store: MessageStore { dependencies.store }

    init(_ dependencies: MessengerDependencies, own: OwnDevices) {
        self.dependencies = dependencies
        self.own = own
    }

    /// The record of `contact` as this device holds it; nil for a request,
    /// which is not sent. A name longer than a record carries is cut.
    static func record(of contact: Contact, times: ContactChangeTimes) throws -> ContactRecord? {
        let state: ContactRecord.State
        switch contact.standing {
        case .accepted: state = .accepted
        case .blocked: state = .blocked
        case .requested: return nil
        }
        return try ContactRecord(identityKey: IdentityKey(rawRepresentation: contact.identityKey), stateChangedAt: UInt64(clamping: times.standing),
                                 state: state, verifiedChangedAt: UInt64(clamping: times.verification), verified: contact.verification == .verified,
                                 nameChangedAt: UInt64(clamping: times.name), name: ContactRecord.fitting(contact.name))
    }

    /// The user just changed the fields `change` of `contact` here: stamps
    /// them (now, or just after what was kept before when this clock is
    /// behind it) and sends the record to each of our other devices, filed
    /// under the contact's conversation. Joins the caller's transaction.
    func announce(_ contact: Contact, changed change: Change) throws {
        guard let current = try store.contacts.contact(id: contact.id), var times = try store.contacts.changeTimes(contactId: contact.id) else { return }
        let now = dependencies.clock.now()
        if change.contains(.standing) { times.standing = max(now, ContactChangeTimes.after(times.standing)) }
        if change.contains(.verification) { times.verification = max(now, ContactChangeTimes.after(times.verification)) }
        if change.contains(.name) { times.name = max(now, ContactChangeTimes.after(times.name)) }
        try store.contacts.setChangeTimes(times, contactId: current.id)
        // A name no record can carry (empty, or one character over 256 bytes) stays on this device.
        guard try !own.peers().isEmpty, let record = try? Self.record(of: current, times: times) else { return }
        try sendWaitingRemovals()
        let conversation = try dependencies.conversation(with: current)
        for content in try contents([record]) { try own.sealToEveryDevice(content, conversation: conversation) }
    }

    /// The user removed `contact` here (its conversation went with it; a
    /// request is each device's own and is not told): the removal is
    /// remembered, and goes to our other devices filed under a lasting
    /// conversation. With none left it waits for the next record or
    /// transcript sealed to them, or the next hand-over. Joins the
    /// caller's transaction.
    func announceRemoval(of contact: Contact, times: ContactChangeTimes) throws {
        guard contact.standing != .requested else { return }
        let stamp = max(dependencies.clock.now(), ContactChangeTimes.after(times.latest))
        try store.contacts.recordRemoval(identityKey: contact.identityKey, at: stamp, sent: false)
        try sendWaitingRemovals()
    }

    /// Seals the removals not sent yet to each of our other devices, filed
    /// under a lasting conversation, and marks them sent; with no such
    /// conversation they wait. Joins the caller's transaction.
    func sendWaitingRemovals() throws {
        guard try store.contacts.hasUnsentRemovals(), let conversation = try store.conversations.newestLastingId() else { return }
        if try !own.peers().isEmpty {
            let waiting = try store.contacts.removals().filter { !$0.sent }.map(Self.removal)
            for content in try contents(waiting) { try own.sealToEveryDevice(content, conversation: conversation) }
        }
        try store.contacts.markRemovalsSent()
    }

    /// Every accepted or blocked contact and every removal remembered, with
    /// when each field changed, to our device `peer`, in contents of at most
    /// `ContactRecord.maxPerContent`; then our delivery credential if it was
    /// ever replaced, and our recovery key if a revocation replaced it. Marks `peer` handed over. Our device list is not
    /// marked as sent by it (see `OwnDevices.seal`). Joins the caller's
    /// transaction.
    func handOver(to peer: [UInt8]) throws {
        guard let conversation = try store.conversations.newestLastingId() else { return }
        // One record per key: the contact held under it, else its removal (a key can be both
        // removed and held again only until the add forgets the removal, in this transaction).
        var records: [[UInt8]: ContactRecord] = [:]
        for (contact, times) in try store.contacts.decided() {
            guard records[contact.identityKey] == nil, let record = try? Self.record(of: contact, times: times) else { continue }
            records[contact.identityKey] = record
        }
        for removal in try store.contacts.removals() where records[removal.identityKey] == nil {
            records[removal.identityKey] = try? Self.removal(removal)
        }
        let ordered = records.values.sorted { $0.identityKey.rawRepresentation.lexicographicallyPrecedes($1.identityKey.rawRepresentation) }
        for content in try contents(ordered) { try own.seal(content, to: peer, conversation: conversation, markingListSent: false) }
        // The credential our contacts reach us with, when one of ours replaced it since the link
        // (after a block): each device registers the latest at its mailbox.
        if let credential = try DeliveryCredentials.handOverContent(dependencies) {
            try own.seal(credential, to: peer, conversation: conversation, markingListSent: false)
        }
        // The recovery key a revocation made, when one did (§20.14), again on this new session: the
        // device may have lost it (a home restored from a backup holds none).
        try store.ownDeviceSessions.setRecoveryKeySent(0, deviceKey: peer)
        try own.sendRecoveryKeyIfOwed(to: peer)
        try store.ownDeviceSessions.setContactsHandedOver(true, deviceKey: peer)
    }

    private static func removal(_ removal: (identityKey: [UInt8], changedAt: Milliseconds, sent: Bool)) throws -> ContactRecord {
        try ContactRecord(identityKey: IdentityKey(rawRepresentation: removal.identityKey), stateChangedAt: UInt64(clamping: removal.changedAt),
                          state: .removed)
    }

    /// `records` as encoded contents of at most `ContactRecord.maxPerContent` each.
    private func contents(_ records: [ContactRecord]) throws -> [[UInt8]] {
        try stride(from: 0, to: records.count, by: ContactRecord.maxPerContent).map { start in
            let chunk = Array(records[start..<min(start + ContactRecord.maxPerContent, records.count)])
            return try Content(id: MessageID.random(using: dependencies.random), sentAt: UInt64(dependencies.clock.now()),
                               body: .contacts(chunk)).encoded()
        }
    }
}
