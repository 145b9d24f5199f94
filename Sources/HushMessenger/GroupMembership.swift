import HushCrypto
import HushProtocol
import HushStore

/// A group's membership as this device changes it (docs/PROTOCOL.md §18):
/// creating a group, an admin's changes (add, remove, promote, rename, and
/// removing a member who asked to leave), and leaving. Each change is a new
/// state that `GroupStateAdoption` makes current and queues for the members.
/// The other jobs of groups have their own parts: `ReceivedGroupStates`
/// (states and invitations from admins), `GroupSenderKeys` (members' chains
/// and their group messages), `Sealer` (our group messages) and
/// `GroupDeliveries` (what is queued for one member). Runs inside the
/// caller's transaction, like the other parts.
final class GroupMembership {
    private let dependencies: MessengerDependencies
    private let sealer: Sealer
    private let adoption: GroupStateAdoption
    private var store: MessageStore { dependencies.store }
    private var me: IdentityKey { dependencies.identity.publicKey }

    init(_ dependencies: MessengerDependencies, sealer: Sealer, adoption: GroupStateAdoption) {
        self.dependencies = dependencies
        self.sealer = sealer
        self.adoption = adoption
    }

    /// Makes our chain for the current state of every group we are in that
    /// has none, and queues its distribution for the other members: what a
    /// restored account does first, since a backup holds no chains
    /// (docs/PROTOCOL.md §19.4). Its first envelope to each member carries
    /// the new session's handshake, on which the member gives us its own
    /// chain again (§11). Returns how many chains were made.
    func makeMissingOwnChains() throws -> Int {
        var made = 0
        // A large group's own chain is derived, not made: a restored account asks for a new state instead (§18.4).
        for group in try store.groups.active() where !group.isLarge {
            let current = try group.currentState()
            guard current.member(me) != nil, current.members.contains(where: { $0.identityKey != me }),
                  try !sealer.ownChains.hasChain(for: current, in: group)
            else { continue }
            _ = try sealer.ownChains.chain(for: current, in: group)
            made += 1
        }
        return made
    }

    // MARK: Lookup

    func group(named name: String) throws -> StoredGroup {
        guard let group = try store.groups.group(named: name) else { throw MessengerError.unknownGroup(name) }
        return group
    }

    func state(of group: StoredGroup) throws -> GroupState {
        try group.currentState()
    }

    /// The contact record of a member (nil for ourselves or a member we have none for).
    func contact(of member: IdentityKey) throws -> Contact? {
        try store.contacts.contact(identityKey: member.rawRepresentation)
    }

    // MARK: Changes made here

    /// Creates a group of us (its admin) and `memberNames` (accepted contacts).
    func create(name: String, memberNames: [String]) throws -> StoredGroup {
        try Self.checkName(name)
        guard try store.groups.group(named: name) == nil else {
            throw MessengerError.groupRefused("a group named '\(name)' already exists: choose another name")
        }
        var members = [GroupState.Member(identityKey: me, role: .admin, label: "")]
        for memberName in memberNames {
            let contact = try sealer.sendableContact(named: memberName)
            let key = try IdentityKey(rawRepresentation: contact.identityKey)
            guard members.allSatisfy({ $0.identityKey != key }) else { continue }
            members.append(.init(identityKey: key, role: .member, label: Self.label(contact.name)))
        }
        guard members.count <= GroupLimits.maxMembers else {
            throw MessengerError.groupRefused("a group holds at most \(GroupLimits.maxMembers) members; a large group, created so, holds up to \(LargeGroupState.maxMembers)")
        }
        let state = try GroupState(groupID: dependencies.random.bytes(SenderKeyWire.groupIDLength), epoch: 1,
                                   secret: SecureBytes(randomCount: GroupLimits.secretLength, using: dependencies.random),
                                   name: name, members: members)
        let group = try store.groups.create(groupID: state.groupID, name: name, state: state.encoded, epoch: state.epoch,
                                            at: dependencies.clock.now())
        try adoption.adopt(state, in: group, announce: true, previous: nil)
        return try store.groups.group(groupID: state.groupID) ?? group
    }

    /// An admin's change: the members and name `change` makes of the current
    /// state become the next epoch's, with a new secret; every member gets
    /// the new state, a member removed gets it without the secret.
    func change(_ name: String, _ change: (inout [GroupState.Member], inout String) throws -> Void) throws -> StoredGroup {
        let group = try self.group(named: name)
        try group.requireMember()
        let current = try state(of: group)
        guard current.isAdmin(me) else {
            throw MessengerError.notGroupAdmin(group: name)
        }
        var members = current.members
        var newName = current.name
        try change(&members, &newName)
        try Self.checkName(newName)
        guard current.epoch < UInt32.max else { throw MessengerError.groupRefused("the group has used every epoch: create a new one") }
        let next = try GroupState(groupID: current.groupID, epoch: current.epoch + 1,
                                  secret: SecureBytes(randomCount: GroupLimits.secretLength, using: dependencies.random),
                                  name: newName, members: members)
        try adoption.adopt(next, in: group, announce: true, previous: current)
        return try store.groups.group(groupID: current.groupID) ?? group
    }

    /// The small groups we are an admin of (each given a new secret after a revocation, §20.14).
    func administered() throws -> [String] {
        try store.groups.active().filter { group in
            try !group.isLarge && group.standing == .member && state(of: group).isAdmin(me)
        }.map(\.name)
    }

    /// Writes the next state of `name`: the same members under a new secret.
    func rekey(_ name: String) throws {
        _ = try change(name) { _, _ in }
    }

    /// After this account revoked a device (docs/PROTOCOL.md §20.14): asks
    /// an admin of every small group it is in but does not administer (the
    /// one with the lowest identity key) to write the next state, with a
    /// rekey request (`0x16`) queued after the revoking list, so the revoked
    /// device's keys open nothing sent there afterwards. Returns the groups
    /// asked for. Joins the caller's transaction.
    func askAdminsToRekey() throws -> [String] {
        var asked: [String] = []
        for group in try store.groups.active() where !group.isLarge && group.standing == .member {
            let current = try state(of: group)
            guard current.member(me) != nil, !current.isAdmin(me),
                  let admin = current.members.filter(\.isAdmin).map(\.identityKey)
                    .min(by: { $0.rawRepresentation.lexicographicallyPrecedes($1.rawRepresentation) }) else { continue }
            let request = Content(id: MessageID.random(using: dependencies.random), sentAt: UInt64(dependencies.clock.now()),
                                  body: .largeGroupRekey(groupID: current.groupID, epoch: current.epoch))
            try adoption.queue(request, to: admin, group: group)
            asked.append(group.name)
        }
        return asked
    }

    /// A member's rekey request for a small group we administer (§20.14):
    /// honoured, by writing the next state, when it names the current epoch
    /// or an earlier one and the device list we hold of the member revokes
    /// more devices than it did when we last honoured a request of theirs
    /// in this group (revoked entries stay in every later list, so signing
    /// lists buys nothing). Anything else is ignored: a member cannot make
    /// the group rekey at will. Joins the caller's transaction.
    func applyRekeyRequest(groupID: [UInt8], epoch: UInt32, from contact: Contact) throws {
        guard let group = try store.groups.group(groupID: groupID), !group.isLarge, group.standing == .member else { return }
        let current = try state(of: group)
        let member = try IdentityKey(rawRepresentation: contact.identityKey)
        guard epoch <= current.epoch, current.isAdmin(me), current.member(member) != nil,
              let list = try dependencies.heldDeviceList(of: contact) else { return }
        let revoked = Int64(list.entries.filter { !$0.isActive }.count)
        guard revoked > (try store.groups.rekeyHonoured(groupRow: group.id, memberKey: member.rawRepresentation) ?? 0) else { return }
        _ = try change(group.name) { _, _ in }
        try store.groups.setRekeyHonoured(revoked, groupRow: group.id, memberKey: member.rawRepresentation)
    }

    func add(_ name: String, memberNames: [String]) throws -> StoredGroup {
        let added = try memberNames.map { try sealer.sendableContact(named: $0) }
        return try change(name) { members, _ in
            for contact in added {
                let key = try IdentityKey(rawRepresentation: contact.identityKey)
                if members.contains(where: { $0.identityKey == key }) {
                    throw MessengerError.groupRefused("\(contact.name) is already a member of '\(name)'")
                }
                members.append(.init(identityKey: key, role: .member, label: Self.label(contact.name)))
            }
            guard members.count <= GroupLimits.maxMembers else {
                throw MessengerError.groupRefused("a group holds at most \(GroupLimits.maxMembers) members; one created small stays small (a large group, created so, holds up to \(LargeGroupState.maxMembers))")
            }
        }
    }

    func remove(_ name: String, memberName: String) throws -> StoredGroup {
        let key = try memberKey(named: memberName, in: try group(named: name))
        guard key != me else { throw MessengerError.removingYourself(group: name) }
        return try change(name) { members, _ in
            members.removeAll { $0.identityKey == key }
            Self.keepAnAdmin(&members)
        }
    }

    func promote(_ name: String, memberName: String) throws -> StoredGroup {
        let key = try memberKey(named: memberName, in: try group(named: name))
        return try change(name) { members, _ in
            guard let index = members.firstIndex(where: { $0.identityKey == key }) else { return }
            guard !members[index].isAdmin else { throw MessengerError.groupRefused("\(memberName) is already an admin of '\(name)'") }
            members[index] = .init(identityKey: key, role: .admin, label: members[index].label)
        }
    }

    func rename(_ name: String, to newName: String) throws -> StoredGroup {
        guard try store.groups.group(named: newName) == nil else {
            throw MessengerError.groupRefused("a group named '\(newName)' already exists: choose another name")
        }
        let changed = try change(name) { _, groupName in groupName = newName }
        // The admin's own copy takes the new name too (members take it in applyUpdate).
        try store.groups.rename(groupRow: changed.id, to: newName)
        return try store.groups.group(named: newName) ?? changed
    }

    /// Leaves: an admin writes the next state without us (promoting the
    /// member with the lowest identity key when no admin would remain); a
    /// member asks the admins to (`groupLeave`). Either way we forget the
    /// group's keys at once and keep its history.
    func leave(_ name: String) throws {
        let group = try self.group(named: name)
        try group.requireMember()
        let current = try state(of: group)
        let others = current.members.filter { $0.identityKey != me }
        if current.isAdmin(me), !others.isEmpty {
            _ = try change(name) { members, _ in
                members.removeAll { $0.identityKey == self.me }
                Self.keepAnAdmin(&members)
            }
        } else if !others.isEmpty {
            let notice = Content(id: MessageID.random(using: dependencies.random), sentAt: UInt64(dependencies.clock.now()),
                                 body: .groupLeave(groupID: current.groupID, epoch: current.epoch))
            // And to our other devices, which leave with us (§20.17).
            for member in others.map(\.identityKey) + [me] { try adoption.queue(notice, to: member, group: group) }
        }
        try store.groups.setStanding(.left, groupRow: group.id)
        try GroupDeparture(dependencies: dependencies).forgetKeys(of: group, keepingDeliveries: true)
    }

    /// Another device of ours left the group (a member's leave, §20.17):
    /// this one leaves too, keeping the history.
    func applyOwnLeave(groupID: [UInt8]) throws {
        guard let group = try store.groups.group(groupID: groupID), group.standing == .member, !group.isLarge else { return }
        try store.groups.setStanding(.left, groupRow: group.id)
        try GroupDeparture(dependencies: dependencies).forgetKeys(of: group, keepingDeliveries: true)
        try dependencies.emit(.groupChanged(group: group.name, conversationID: group.conversationId))
    }

    /// A member leaves: the admin with the lowest identity key among those
    /// remaining writes the state without it; the others wait for that state.
    func applyLeave(groupID: [UInt8], epoch: UInt32, from contact: Contact) throws {
        guard let group = try store.groups.group(groupID: groupID), group.standing == .member, !group.isLarge else { return }
        let current = try state(of: group)
        let leaver = try IdentityKey(rawRepresentation: contact.identityKey)
        guard current.member(leaver) != nil else { return }
        let admins = current.members.filter { $0.isAdmin && $0.identityKey != leaver }.map(\.identityKey)
        guard let chosen = admins.min(by: { $0.rawRepresentation.lexicographicallyPrecedes($1.rawRepresentation) }), chosen == me else { return }
        _ = try change(group.name) { members, _ in
            members.removeAll { $0.identityKey == leaver }
            Self.keepAnAdmin(&members)
        }
    }

    private func memberKey(named name: String, in group: StoredGroup) throws -> IdentityKey {
        guard let contact = try store.contacts.contact(named: name) else { throw MessengerError.unknownContact(name) }
        let key = try IdentityKey(rawRepresentation: contact.identityKey)
        guard try state(of: group).member(key) != nil else {
            throw MessengerError.groupRefused("\(name) is not a member of '\(group.name)'")
        }
        return key
    }

    private static func keepAnAdmin(_ members: inout [GroupState.Member]) {
        guard !members.isEmpty, !members.contains(where: \.isAdmin) else { return }
        let index = members.indices.min { members[$0].identityKey.rawRepresentation.lexicographicallyPrecedes(members[$1].identityKey.rawRepresentation) }!
        members[index] = .init(identityKey: members[index].identityKey, role: .admin, label: members[index].label)
    }

    private static func label(_ name: String) -> String {
        var label = ""
        for character in name where (label + String(character)).utf8.count <= GroupLimits.maxLabelLength { label.append(character) }
        return label
    }

    static func checkName(_ name: String) throws {
        guard (1...GroupLimits.maxNameLength).contains(name.utf8.count) else {
            throw MessengerError.groupRefused("a group name is 1 to \(GroupLimits.maxNameLength) bytes")
        }
        guard !name.hasPrefix("contact:"), !name.hasPrefix("group:") else {
            throw MessengerError.groupRefused("a group name cannot start with 'contact:' or 'group:'")
        }
    }
}
