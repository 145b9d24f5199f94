import HushCrypto
import HushProtocol
import HushStore

/// Makes a group's state current (docs/PROTOCOL.md §18.2), whether this
/// device wrote it (`GroupMembership`) or an admin sent it
/// (`ReceivedGroupStates`): keeps it and the states in flight before it,
/// gives every member a contact, makes our sender chain for it, and queues
/// for each member what they must get over their pairwise session (in
/// `group_deliveries`, sealed by `GroupDeliveries` at the next flush).
final class GroupStateAdoption {
    private let dependencies: MessengerDependencies
    private let ownChains: OwnSenderChains
    private var store: MessageStore { dependencies.store }
    private var me: IdentityKey { dependencies.identity.publicKey }

    init(_ dependencies: MessengerDependencies) {
        self.dependencies = dependencies
        ownChains = OwnSenderChains(dependencies)
    }

    /// Makes `state` current in `group`: keeps it (to open envelopes sealed
    /// under it), gives every member a contact record, makes our chain for
    /// it and queues its distribution to every other member; `announce`
    /// (our own change) also queues the state itself to every member, and
    /// to members `previous` had and `state` drops, the state without its
    /// secret so they learn they were removed and open nothing after.
    ///
    /// `storedAt`: when the relay stored the envelope that carried `state`
    /// (nil for our own change: the relay's time of our next deposit). A
    /// member it removes keeps its chains, closed there: what it sent while
    /// still a member, stored by then, still opens (it may arrive after this
    /// state), and nothing later does.
    func adopt(_ state: GroupState, in group: StoredGroup, announce: Bool, previous: GroupState?, storedAt: Milliseconds? = nil) throws {
        let now = dependencies.clock.now()
        try store.groups.setState(state.encoded, epoch: state.epoch, groupRow: group.id)
        try store.groups.keepState(state.encoded, digest: state.digest, epoch: state.epoch, groupRow: group.id)
        // What was sealed under the last few epochs may still arrive: from the
        // relay, or from a member who has not caught up yet. Nothing older.
        try store.groups.forgetEpochs(below: GroupLimits.oldestKeptEpoch(current: state.epoch), groupRow: group.id)
        // A member no longer in the group writes nothing more to it: its chains of the states before
        // are closed (what the relay stored before the removal still opens, `GroupSenderKeys.open`);
        // and what we sent it that it had not confirmed it will never read.
        if let previous {
            for gone in previous.members where state.member(gone.identityKey) == nil {
                try store.groups.closeChains(of: gone.identityKey.rawRepresentation, below: state.epoch, at: storedAt, madeAt: now,
                                             groupRow: group.id)
                try GroupMessageStatus(dependencies: dependencies).stopWaiting(for: gone.identityKey, in: group)
            }
        }
        let others = state.members.filter { $0.identityKey != me }
        for member in others { try ensureContact(for: member) }
        if announce {
            let update = Content(id: MessageID.random(using: dependencies.random), sentAt: UInt64(now), body: .groupUpdate(state))
            // And to our other devices (our account as a member stands for them, `GroupDeliveries`), §20.17.
            for member in others.map(\.identityKey) + [me] { try queue(update, to: member, group: group) }
            if let previous {
                let removed = previous.members.filter { state.member($0.identityKey) == nil && $0.identityKey != me }
                if !removed.isEmpty {
                    let redacted = try GroupState(groupID: state.groupID, epoch: state.epoch, secret: SecureBytes(count: GroupLimits.secretLength),
                                                  name: state.name, members: state.members)
                    let notice = Content(id: MessageID.random(using: dependencies.random), sentAt: UInt64(now), body: .groupUpdate(redacted))
                    for member in removed { try queue(notice, to: member.identityKey, group: group) }
                }
            }
        }
        guard state.member(me) != nil else { return }
        try ownChains.distribute(for: state, in: group, to: others.map(\.identityKey))
    }

    /// The states kept for `group`, newest first: the current one and those
    /// of the epochs before it (`GroupLimits.keptEpochs`), under which
    /// messages still in flight were sealed.
    func keptStates(_ group: StoredGroup) throws -> [GroupState] {
        try store.groups.keptStates(groupRow: group.id).map { try GroupState.decode($0) }
    }

    /// Queues `content` for one member, to be sealed over their pairwise
    /// session by `GroupDeliveries` at the next flush.
    func queue(_ content: Content, to member: IdentityKey, group: StoredGroup) throws {
        try store.groups.queueDelivery(try content.encoded(), to: member.rawRepresentation, groupRow: group.id,
                                       at: dependencies.clock.now())
    }

    /// A member we have no contact for gets one, named after the label the
    /// admin gave it, accepted (an admin we accepted vouched for it), with
    /// no session yet; a member filed as a message request is accepted.
    func ensureContact(for member: GroupState.Member) throws {
        if let existing = try store.contacts.contact(identityKey: member.identityKey.rawRepresentation) {
            if existing.standing == .requested { try store.contacts.setStanding(.accepted, contactId: existing.id) }
            return
        }
        let address = member.identityKey.address.description
        let name = try dependencies.freeContactName(from: member.label.isEmpty ? "member-" + String(address.dropFirst(5).prefix(8)) : member.label)
        // Each device adopts the same state and makes the same contact: nobody decided on it (§20.16).
        _ = try store.contacts.add(name: name, address: address, identityKey: member.identityKey.rawRepresentation,
                                   standing: .accepted, at: dependencies.clock.now(), decided: false)
    }
}
