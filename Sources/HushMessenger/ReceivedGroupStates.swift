import HushCrypto
import HushProtocol
import HushStore

/// States from admins (docs/PROTOCOL.md §18.2): an invitation to a group
/// we do not know yet (kept with its sender's message request until the
/// user accepts), or a state that supersedes ours. Anything stale or
/// unauthorised changes nothing. Runs inside the caller's transaction.
final class ReceivedGroupStates {
    private let dependencies: MessengerDependencies
    private let adoption: GroupStateAdoption
    private var store: MessageStore { dependencies.store }
    private var me: IdentityKey { dependencies.identity.publicKey }

    init(_ dependencies: MessengerDependencies, adoption: GroupStateAdoption) {
        self.dependencies = dependencies
        self.adoption = adoption
    }

    /// Applies a state from `contact` (§18.2): an invitation to a group we do
    /// not know (from an accepted contact who is an admin in it; from a
    /// message request it is kept until the user accepts or blocks them), or
    /// a state that supersedes ours from a member who was an admin in the
    /// state it follows. Anything else is stale or unauthorised and changes nothing.
    /// `storedAt`: when the relay stored the envelope that carried it.
    func applyUpdate(_ incoming: GroupState, from contact: Contact, storedAt: Milliseconds? = nil) throws {
        let sender = try IdentityKey(rawRepresentation: contact.identityKey)
        guard let group = try store.groups.group(groupID: incoming.groupID) else {
            guard contact.verification != .changed, incoming.isAdmin(sender) else { return }
            if contact.standing == .requested {
                try keepInvitation(incoming, from: contact)
                return
            }
            guard contact.standing == .accepted, incoming.member(me) != nil else { return }
            try join(incoming)
            return
        }
        // A group is small or large for its whole life (§18.4).
        guard group.standing != .left, !group.isLarge else { return }
        try supersede(group, with: incoming, from: sender, withoutUs: .removed, storedAt: storedAt)
    }

    /// A state another device of ours sent (§20.17): one this account wrote
    /// there as an admin (a group it made, a change it made), checked as an
    /// admin's state from a contact is, with our account as the sender: a
    /// group we do not know is created when we are an admin of it, and a
    /// known one takes the state when it supersedes ours and we were an
    /// admin of the state it follows. States of groups others administer
    /// come from those admins, to each of our devices. A state without us
    /// (we left there, as an admin) leaves here too.
    func applyFromOwnDevice(_ incoming: GroupState, storedAt: Milliseconds? = nil) throws {
        guard let group = try store.groups.group(groupID: incoming.groupID) else {
            guard incoming.isAdmin(me) else { return }
            try join(incoming)
            return
        }
        guard group.standing == .member, !group.isLarge else { return }
        try supersede(group, with: incoming, from: me, withoutUs: .left, storedAt: storedAt)
    }

    /// Makes `incoming` the state of `group` when it supersedes ours and
    /// `sender` was an admin in the latest state we hold before its epoch
    /// (or, at the same epoch, in ours); renamed as it says. A state without
    /// us sets the group's standing to `withoutUs` (removed by an admin; left,
    /// when another device of ours wrote it) and forgets its keys.
    private func supersede(_ group: StoredGroup, with incoming: GroupState, from sender: IdentityKey,
                           withoutUs: StoredGroup.Standing, storedAt: Milliseconds?) throws {
        let current = try group.currentState()
        guard incoming.supersedes(current) else { return }
        let base = try adoption.keptStates(group).first { $0.epoch < incoming.epoch } ?? (current.epoch < incoming.epoch ? current : nil)
        guard let base, base.isAdmin(sender) || (current.epoch == incoming.epoch && current.isAdmin(sender)) else { return }
        guard incoming.member(me) != nil else {
            try store.groups.setState(incoming.encoded, epoch: incoming.epoch, groupRow: group.id)
            try store.groups.setStanding(withoutUs, groupRow: group.id)
            try GroupDeparture(dependencies: dependencies).forgetKeys(of: group, keepingDeliveries: false)
            try dependencies.emit(.groupChanged(group: group.name, conversationID: group.conversationId))
            return
        }
        if group.standing == .removed { try store.groups.setStanding(.member, groupRow: group.id) }
        // Renamed first: what adopting tells live views (our messages that stop
        // waiting for a removed member) names the group as it is now called.
        var renamed = group
        if incoming.name != current.name {
            renamed.name = try store.groups.freeName(incoming.name)
            try store.groups.rename(groupRow: group.id, to: renamed.name)
        }
        try adoption.adopt(incoming, in: renamed, announce: false, previous: current, storedAt: storedAt)
        try dependencies.emit(.groupChanged(group: renamed.name, conversationID: group.conversationId))
    }

    /// Creates the group `incoming` describes (one we are in and do not
    /// know yet) under a free name, makes the state current, and tells live views.
    private func join(_ incoming: GroupState) throws {
        let name = try store.groups.freeName(incoming.name)
        let created = try store.groups.create(groupID: incoming.groupID, name: name, state: incoming.encoded, epoch: incoming.epoch,
                                              at: dependencies.clock.now())
        try adoption.adopt(incoming, in: created, announce: false, previous: nil)
        try dependencies.emit(.groupChanged(group: name, conversationID: created.conversationId))
    }

    /// An invitation from someone whose message request waits: kept (a later
    /// state of the same group replaces it; one without us withdraws it)
    /// and shown with the request, and applied when the user accepts it.
    private func keepInvitation(_ incoming: GroupState, from contact: Contact) throws {
        if let kept = try store.invitations.invitation(groupID: incoming.groupID),
           try GroupState.decode(kept.state).supersedes(incoming) { return }
        guard incoming.member(me) != nil else {
            try store.invitations.remove(groupID: incoming.groupID)
            return
        }
        try store.invitations.keep(groupID: incoming.groupID, contactId: contact.id, name: incoming.name, state: incoming.encoded,
                                   at: dependencies.clock.now())
    }

    /// The user accepted `contact`'s message request: the invitations it sent
    /// while it waited are applied now, as if they arrived after the
    /// acceptance (the group's keys and messages, kept at the relay while
    /// they waited, open on the next sync).
    func applyInvitations(from contact: Contact) throws {
        for invitation in try store.invitations.invitations(contactId: contact.id) {
            try store.invitations.remove(groupID: invitation.groupID)
            try applyUpdate(try GroupState.decode(invitation.state), from: contact)
        }
    }
}
