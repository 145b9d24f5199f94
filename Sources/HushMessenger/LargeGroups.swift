import HushCrypto
import HushProtocol
import HushStore

/// A large group's membership as this device changes and applies it
/// (docs/PROTOCOL.md §18.4): a state (content `0x15`) goes from its admin to
/// every member over their pairwise sessions, `n` envelopes for a create,
/// an add or a remove, and whoever applies it derives every member's chain
/// from its secret and forgets the secret. Members meet only in the group:
/// no contact is made for them and no session started. Runs inside the
/// caller's transaction, like the other parts.
final class LargeGroups {
    private let dependencies: MessengerDependencies
    private let sealer: Sealer
    private let adoption: GroupStateAdoption
    private var store: MessageStore { dependencies.store }
    private var identity: IdentityKeyPair { dependencies.identity }
    private var me: IdentityKey { dependencies.identity.publicKey }

    init(_ dependencies: MessengerDependencies, sealer: Sealer, adoption: GroupStateAdoption) {
        self.dependencies = dependencies
        self.sealer = sealer
        self.adoption = adoption
    }

    func current(_ group: StoredGroup) throws -> KeptLargeGroupState {
        try KeptLargeGroupState.decode(group.state)
    }

    // MARK: Changes made here

    /// Creates a large group of us (its admin) and `memberNames` (accepted contacts).
    func create(name: String, memberNames: [String]) throws -> StoredGroup {
        try dependencies.requireLargeGroupDevice(name)
        try GroupMembership.checkName(name)
        guard try store.groups.group(named: name) == nil else {
            throw MessengerError.groupRefused("a group named '\(name)' already exists: choose another name")
        }
        var members = [LargeGroupState.Member(identityKey: me, role: .admin)]
        var seen: Set<IdentityKey> = [me]
        for memberName in memberNames {
            let key = try IdentityKey(rawRepresentation: try sealer.sendableContact(named: memberName).identityKey)
            guard seen.insert(key).inserted else { continue }
            members.append(.init(identityKey: key, role: .member))
        }
        guard members.count <= LargeGroupState.maxMembers else {
            throw MessengerError.groupRefused("a large group holds at most \(LargeGroupState.maxMembers) members")
        }
        let state = try LargeGroupState(groupID: dependencies.random.bytes(SenderKeyWire.groupIDLength), epoch: 1,
                                        secret: SecureBytes(randomCount: GroupLimits.secretLength, using: dependencies.random),
                                        name: name, members: members)
        let group = try store.groups.create(groupID: state.groupID, name: name, state: KeptLargeGroupState(forgetting: state).encoded,
                                            epoch: state.epoch, large: true, at: dependencies.clock.now())
        try adopt(state, in: group, announce: true, previous: nil)
        return try store.groups.group(groupID: state.groupID) ?? group
    }

    /// An admin's change: the next epoch with a new secret and the members
    /// and name `change` makes; every member of it gets it, a member removed
    /// gets it without the secret. `n` envelopes, whatever changed.
    func change(_ group: StoredGroup, _ change: (inout [LargeGroupState.Member], inout String) throws -> Void) throws -> StoredGroup {
        try group.requireMember()
        try dependencies.requireLargeGroupDevice(group.name)
        let current = try self.current(group)
        guard current.state.isAdmin(me) else { throw MessengerError.notGroupAdmin(group: group.name) }
        var members = current.state.members
        var name = current.state.name
        try change(&members, &name)
        try GroupMembership.checkName(name)
        guard members.count <= LargeGroupState.maxMembers else {
            throw MessengerError.groupRefused("a large group holds at most \(LargeGroupState.maxMembers) members")
        }
        guard current.epoch < UInt32.max else { throw MessengerError.groupRefused("the group has used every epoch: create a new one") }
        let next = try LargeGroupState(groupID: current.state.groupID, epoch: current.epoch + 1,
                                       secret: SecureBytes(randomCount: GroupLimits.secretLength, using: dependencies.random),
                                       name: name, members: members)
        try adopt(next, in: group, announce: true, previous: current.state)
        return try store.groups.group(groupID: next.groupID) ?? group
    }

    func add(_ group: StoredGroup, memberNames: [String]) throws -> StoredGroup {
        let added = try memberNames.map { try sealer.sendableContact(named: $0) }
        return try change(group) { members, _ in
            for contact in added {
                let key = try IdentityKey(rawRepresentation: contact.identityKey)
                if members.contains(where: { $0.identityKey == key }) {
                    throw MessengerError.groupRefused("\(contact.name) is already a member of '\(group.name)'")
                }
                members.append(.init(identityKey: key, role: .member))
            }
        }
    }

    func remove(_ group: StoredGroup, member key: IdentityKey) throws -> StoredGroup {
        guard key != me else { throw MessengerError.removingYourself(group: group.name) }
        guard try current(group).state.member(key) != nil else {
            throw MessengerError.groupRefused("\(key.address) is not a member of '\(group.name)'")
        }
        return try change(group) { members, _ in
            members.removeAll { $0.identityKey == key }
            Self.keepAnAdmin(&members)
        }
    }

    func promote(_ group: StoredGroup, member key: IdentityKey) throws -> StoredGroup {
        try change(group) { members, _ in
            guard let index = members.firstIndex(where: { $0.identityKey == key }) else {
                throw MessengerError.groupRefused("\(key.address) is not a member of '\(group.name)'")
            }
            guard !members[index].isAdmin else { throw MessengerError.groupRefused("\(key.address) is already an admin of '\(group.name)'") }
            members[index] = .init(identityKey: key, role: .admin)
        }
    }

    func rename(_ group: StoredGroup, to newName: String) throws -> StoredGroup {
        guard try store.groups.group(named: newName) == nil else {
            throw MessengerError.groupRefused("a group named '\(newName)' already exists: choose another name")
        }
        let changed = try change(group) { _, name in name = newName }
        try store.groups.rename(groupRow: changed.id, to: newName)
        return try store.groups.group(named: newName) ?? changed
    }

    /// Leaves: an admin writes the next state without us; a member asks the
    /// admins only (content `0x0C`: they are the ones who act on it, and a
    /// notice to every member would need a session with each, §18.4).
    /// Either way we forget the group's keys at once and keep its history.
    func leave(_ group: StoredGroup) throws {
        try group.requireMember()
        let current = try self.current(group).state
        let others = current.members.filter { $0.identityKey != me }
        if current.isAdmin(me), !others.isEmpty {
            _ = try change(group) { members, _ in
                members.removeAll { $0.identityKey == self.me }
                Self.keepAnAdmin(&members)
            }
        } else if !others.isEmpty {
            let notice = Content(id: MessageID.random(using: dependencies.random), sentAt: UInt64(dependencies.clock.now()),
                                 body: .groupLeave(groupID: current.groupID, epoch: current.epoch))
            for admin in others where admin.isAdmin { try adoption.queue(notice, to: admin.identityKey, group: group) }
        }
        try store.groups.setStanding(.left, groupRow: group.id)
        // What was just queued (the state without us, or the notice to the admins) still goes out.
        try GroupDeparture(dependencies: dependencies).forgetKeys(of: group, keepingDeliveries: true)
    }

    /// A member's leave notice: the admin with the lowest identity key among
    /// those remaining writes the state without it.
    func applyLeave(_ group: StoredGroup, from contact: Contact) throws {
        guard group.standing == .member else { return }
        let current = try self.current(group).state
        let leaver = try IdentityKey(rawRepresentation: contact.identityKey)
        guard current.member(leaver) != nil else { return }
        let admins = current.members.filter { $0.isAdmin && $0.identityKey != leaver }.map(\.identityKey)
        guard let chosen = admins.min(by: { $0.rawRepresentation.lexicographicallyPrecedes($1.rawRepresentation) }), chosen == me else { return }
        _ = try change(group) { members, _ in
            members.removeAll { $0.identityKey == leaver }
            Self.keepAnAdmin(&members)
        }
    }

    /// A member's rekey request (content `0x16`, §18.4): it cannot send under
    /// `epoch`. An admin of the current state, when `epoch` is still the
    /// current one and the sender a member of it, writes the next state with
    /// the same members and a new secret (`n` envelopes); a request for an
    /// epoch already replaced is answered by the state that replaced it.
    func applyRekey(groupID: [UInt8], epoch: UInt32, from contact: Contact) throws {
        guard let group = try store.groups.group(groupID: groupID), group.isLarge, group.standing == .member else { return }
        let current = try self.current(group)
        let sender = try IdentityKey(rawRepresentation: contact.identityKey)
        guard current.epoch == epoch, current.state.member(sender) != nil, current.state.isAdmin(me) else { return }
        _ = try change(group) { _, _ in }
    }

    // MARK: Restored accounts

    /// Asks for a new state of every large group we are in whose current
    /// state we hold no chain of our own for (a restored account lost its
    /// place in it, §18.4): a rekey request (content `0x16`) to the admin
    /// with the lowest identity key, or, with no other admin, the next state
    /// written at once. `only`: that group alone. Returns how many it asked
    /// for. Sending waits meanwhile (`LargeGroupMessages.encrypt`).
    @discardableResult
    func askForNewStates(only name: String? = nil) throws -> Int {
        // A linked device holds large groups' states from its link but never a chain of its own (§20.17).
        guard dependencies.device == nil else { return 0 }
        var asked = 0
        for group in try store.groups.active() where group.isLarge && (name == nil || group.name == name) {
            let current = try self.current(group)
            guard current.state.member(me) != nil,
                  try store.groups.memberChain(epoch: current.epoch, memberKey: me.rawRepresentation, groupRow: group.id) == nil else { continue }
            let admins = current.state.members.filter { $0.isAdmin && $0.identityKey != me }.map(\.identityKey)
            if let admin = admins.min(by: { $0.rawRepresentation.lexicographicallyPrecedes($1.rawRepresentation) }) {
                let request = Content(id: MessageID.random(using: dependencies.random), sentAt: UInt64(dependencies.clock.now()),
                                      body: .largeGroupRekey(groupID: current.state.groupID, epoch: current.epoch))
                try adoption.queue(request, to: admin, group: group)
            } else {
                _ = try change(group) { _, _ in }
            }
            asked += 1
        }
        return asked
    }

    // MARK: States from admins

    /// A large state from `contact` (§18.2's rules with §18.4's changes): an
    /// invitation from an accepted contact who is an admin in it, or a state
    /// superseding ours from an admin of the state it follows. A group held
    /// as a small one never becomes large. An invitation from a message
    /// request is not kept: the admin's state arrives again with its next
    /// change, or a rekey asks for one.
    func applyUpdate(_ incoming: LargeGroupState, from contact: Contact) throws {
        let sender = try IdentityKey(rawRepresentation: contact.identityKey)
        guard let group = try store.groups.group(groupID: incoming.groupID) else {
            guard contact.verification != .changed, contact.standing == .accepted, incoming.isAdmin(sender),
                  incoming.member(me) != nil else { return }
            let name = try store.groups.freeName(incoming.name)
            let created = try store.groups.create(groupID: incoming.groupID, name: name,
                                                  state: KeptLargeGroupState(forgetting: incoming).encoded, epoch: incoming.epoch,
                                                  large: true, at: dependencies.clock.now())
            try adopt(incoming, in: created, announce: false, previous: nil)
            try dependencies.emit(.groupChanged(group: name, conversationID: created.conversationId))
            return
        }
        guard group.isLarge, group.standing != .left else { return }
        let current = try self.current(group)
        guard current.isSuperseded(by: incoming) else { return }
        let kept = try store.groups.keptStates(groupRow: group.id).map(KeptLargeGroupState.decode)
        let base = kept.first { $0.epoch < incoming.epoch } ?? (current.epoch < incoming.epoch ? current : nil)
        guard let base, base.state.isAdmin(sender) || (current.epoch == incoming.epoch && current.state.isAdmin(sender)) else { return }
        guard incoming.member(me) != nil else {
            try store.groups.setState(KeptLargeGroupState(forgetting: incoming).encoded, epoch: incoming.epoch, groupRow: group.id)
            try store.groups.setStanding(.removed, groupRow: group.id)
            try GroupDeparture(dependencies: dependencies).forgetKeys(of: group, keepingDeliveries: false)
            try dependencies.emit(.groupChanged(group: group.name, conversationID: group.conversationId))
            return
        }
        if group.standing == .removed { try store.groups.setStanding(.member, groupRow: group.id) }
        try adopt(incoming, in: group, announce: false, previous: current.state)
        var name = group.name
        if incoming.name != current.state.name {
            name = try store.groups.freeName(incoming.name)
            try store.groups.rename(groupRow: group.id, to: name)
        }
        try dependencies.emit(.groupChanged(group: name, conversationID: group.conversationId))
    }

    // MARK: Making a state current

    /// Makes `state` current: keeps it without its secret (and the states of
    /// the epochs before, `GroupLimits.keptEpochs`, for envelopes in flight), forgets the chains of
    /// members it drops, derives every member's chain (ours with a fresh
    /// signing key and its binding) and then forgets the secret; `announce`
    /// (our own change) queues the state for every other member and, without
    /// its secret, for every member `previous` had and it drops.
    func adopt(_ state: LargeGroupState, in group: StoredGroup, announce: Bool, previous: LargeGroupState?) throws {
        let now = dependencies.clock.now()
        let kept = try KeptLargeGroupState(forgetting: state)
        try store.groups.setState(kept.encoded, epoch: state.epoch, groupRow: group.id)
        try store.groups.keepState(kept.encoded, digest: kept.digest, epoch: state.epoch, groupRow: group.id)
        try store.groups.forgetEpochs(below: GroupLimits.oldestKeptEpoch(current: state.epoch), groupRow: group.id)
        // A state of the same epoch that supersedes ours replaces its chains.
        try store.groups.forgetMemberChains(epoch: state.epoch, groupRow: group.id)
        if let previous {
            let staying = Set(state.members.map(\.identityKey))
            for gone in previous.members where !staying.contains(gone.identityKey) {
                try store.groups.forgetChains(of: gone.identityKey.rawRepresentation, groupRow: group.id)
            }
        }
        let others = state.members.filter { $0.identityKey != me }
        if announce {
            let update = try Content(id: MessageID.random(using: dependencies.random), sentAt: UInt64(now), body: .largeGroupUpdate(state))
                .encoded()
            for member in others { try store.groups.queueDelivery(update, to: member.identityKey.rawRepresentation, groupRow: group.id, at: now) }
            if let previous {
                let staying = Set(state.members.map(\.identityKey))
                let removed = previous.members.filter { !staying.contains($0.identityKey) && $0.identityKey != me }
                if !removed.isEmpty {
                    let notice = try Content(id: MessageID.random(using: dependencies.random), sentAt: UInt64(now),
                                             body: .largeGroupUpdate(kept.state)).encoded()
                    for member in removed {
                        try store.groups.queueDelivery(notice, to: member.identityKey.rawRepresentation, groupRow: group.id, at: now)
                    }
                }
            }
        }
        guard state.member(me) != nil else { return }
        for member in others {
            let chain = try LargeGroupChain(member: member.identityKey, in: state)
            try store.groups.saveMemberChain(chain.serialized(), epoch: state.epoch, memberKey: member.identityKey.rawRepresentation,
                                             groupRow: group.id)
        }
        let own = try LargeGroupChain(own: identity, in: state,
                                      signingSeed: SecureBytes(randomCount: Ed25519.seedLength, using: dependencies.random))
        try store.groups.saveMemberChain(own.serialized(), epoch: state.epoch, memberKey: me.rawRepresentation, groupRow: group.id)
    }

    private static func keepAnAdmin(_ members: inout [LargeGroupState.Member]) {
        guard !members.isEmpty, !members.contains(where: \.isAdmin) else { return }
        let index = members.indices.min { members[$0].identityKey.rawRepresentation.lexicographicallyPrecedes(members[$1].identityKey.rawRepresentation) }!
        members[index] = .init(identityKey: members[index].identityKey, role: .admin)
    }
}
