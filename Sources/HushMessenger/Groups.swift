import HushCrypto
import HushProtocol
import HushStore

/// Group conversations (docs/PROTOCOL.md §18): membership states written by
/// admins and sent over the pairwise sessions, one sender chain per member
/// and state; group messages are encrypted once by `Sealer` and fanned out
/// by `Dispatcher`.
/// Runs inside the caller's transaction, like the other parts; what it
/// queues for one member (a state, a key, a leave) waits in
/// `group_deliveries` for `GroupDeliveries`, which may need the relay first
/// (a session with a member we never wrote to).
final class Groups {
    private let dependencies: MessengerDependencies
    private let sealer: Sealer
    private let ownChains: OwnSenderChains
    private var store: MessageStore { dependencies.store }
    private var me: IdentityKey { dependencies.identity.publicKey }

    init(_ dependencies: MessengerDependencies, sealer: Sealer) {
        self.dependencies = dependencies
        self.sealer = sealer
        ownChains = OwnSenderChains(dependencies)
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
            throw MessengerError.groupRefused("a group holds at most \(GroupLimits.maxMembers) members")
        }
        let state = try GroupState(groupID: dependencies.random.bytes(SenderKeyWire.groupIDLength), epoch: 1,
                                   secret: SecureBytes(randomCount: GroupLimits.secretLength, using: dependencies.random),
                                   name: name, members: members)
        let group = try store.groups.create(groupID: state.groupID, name: name, state: state.encoded, epoch: state.epoch,
                                            at: dependencies.clock.now())
        try adopt(state, in: group, announce: true, previous: nil)
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
            throw MessengerError.groupRefused("only an admin of '\(name)' can change it; `hush group info \(name)` lists its admins")
        }
        var members = current.members
        var newName = current.name
        try change(&members, &newName)
        try Self.checkName(newName)
        guard current.epoch < UInt32.max else { throw MessengerError.groupRefused("the group has used every epoch: create a new one") }
        let next = try GroupState(groupID: current.groupID, epoch: current.epoch + 1,
                                  secret: SecureBytes(randomCount: GroupLimits.secretLength, using: dependencies.random),
                                  name: newName, members: members)
        try adopt(next, in: group, announce: true, previous: current)
        return try store.groups.group(groupID: current.groupID) ?? group
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
                throw MessengerError.groupRefused("a group holds at most \(GroupLimits.maxMembers) members")
            }
        }
    }

    func remove(_ name: String, memberName: String) throws -> StoredGroup {
        let key = try memberKey(named: memberName, in: try group(named: name))
        guard key != me else { throw MessengerError.groupRefused("to leave '\(name)', use `hush group leave \(name)`") }
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
            for member in others { try queue(notice, to: member.identityKey, group: group) }
        }
        try store.groups.setStanding(.left, groupRow: group.id)
        try forgetKeysKeepingDeliveries(group)
    }

    // MARK: Changes received

    /// Applies a state from `contact` (§18.2): an invitation to a group we do
    /// not know (from an accepted contact who is an admin in it; from a
    /// message request it is kept until the user accepts or blocks them), or
    /// a state that supersedes ours from a member who was an admin in the
    /// state it follows. Anything else is stale or unauthorised and changes nothing.
    func applyUpdate(_ incoming: GroupState, from contact: Contact) throws {
        let sender = try IdentityKey(rawRepresentation: contact.identityKey)
        guard let group = try store.groups.group(groupID: incoming.groupID) else {
            guard contact.verification != .changed, incoming.isAdmin(sender) else { return }
            if contact.standing == .requested {
                try keepInvitation(incoming, from: contact)
                return
            }
            guard contact.standing == .accepted, incoming.member(me) != nil else { return }
            let name = try freeGroupName(incoming.name)
            let created = try store.groups.create(groupID: incoming.groupID, name: name, state: incoming.encoded, epoch: incoming.epoch,
                                                  at: dependencies.clock.now())
            try adopt(incoming, in: created, announce: false, previous: nil)
            dependencies.emit(.groupChanged(group: name, conversationID: created.conversationId))
            return
        }
        guard group.standing != .left else { return }
        let current = try state(of: group)
        guard incoming.supersedes(current) else { return }
        // The sender must have been an admin in the latest state we hold before the incoming epoch.
        let base = try keptStates(group).first { $0.epoch < incoming.epoch } ?? (current.epoch < incoming.epoch ? current : nil)
        guard let base, base.isAdmin(sender) || (current.epoch == incoming.epoch && current.isAdmin(sender)) else { return }
        guard incoming.member(me) != nil else {
            try store.groups.setState(incoming.encoded, epoch: incoming.epoch, groupRow: group.id)
            try store.groups.setStanding(.removed, groupRow: group.id)
            try store.groups.forgetKeys(groupRow: group.id)
            dependencies.emit(.groupChanged(group: group.name, conversationID: group.conversationId))
            return
        }
        if group.standing == .removed { try store.groups.setStanding(.member, groupRow: group.id) }
        try adopt(incoming, in: group, announce: false, previous: current)
        var name = group.name
        if incoming.name != current.name {
            name = try freeGroupName(incoming.name)
            try store.groups.rename(groupRow: group.id, to: name)
        }
        dependencies.emit(.groupChanged(group: name, conversationID: group.conversationId))
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

    /// A member leaves: the admin with the lowest identity key among those
    /// remaining writes the state without it; the others wait for that state.
    func applyLeave(groupID: [UInt8], epoch: UInt32, from contact: Contact) throws {
        guard let group = try store.groups.group(groupID: groupID), group.standing == .member else { return }
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

    /// Keeps a member's chain. A distribution for a group or epoch we do not
    /// hold yet (its state is still on its way from an admin) is ours to
    /// wait for: `missingLocalState` keeps the envelope at the relay and the
    /// next sync tries it again.
    func applyDistribution(_ distribution: SenderKeyDistribution, from contact: Contact) throws {
        guard let group = try store.groups.group(groupID: distribution.groupID) else {
            if try store.invitations.invitation(groupID: distribution.groupID) != nil {
                throw MessengerError.awaitingAcceptance("a group key for an invitation that waits with its sender's message request (`hush requests`)")
            }
            throw MessengerError.awaitingGroupKey("a group key for a group whose invitation has not arrived yet")
        }
        guard group.standing == .member else { return }
        let sender = try IdentityKey(rawRepresentation: contact.identityKey)
        let states = try keptStates(group)
        guard states.contains(where: { $0.epoch == distribution.epoch && $0.member(sender) != nil }) else {
            if distribution.epoch > group.epoch {
                throw MessengerError.awaitingGroupKey("a group key for an epoch whose membership has not arrived yet")
            }
            return
        }
        let chain = SenderKeyChain(distribution: distribution)
        try store.groups.saveChain(chain.serialized(), epoch: chain.epoch, signingKey: chain.signingKey.rawRepresentation,
                                   memberKey: sender.rawRepresentation, stateDigest: nil, groupRow: group.id)
    }

    // MARK: Receiving

    /// Opens a group envelope with the keys of the states we hold and
    /// decrypts the group message with its sender's chain; stores a text or
    /// an attachment in the group's conversation and queues a delivery
    /// receipt to its sender over their pairwise session.
    func open(_ envelope: MailboxEnvelope, applying apply: (Content, Contact, StoredGroup) throws -> Void) throws {
        guard let (message, group) = try openEnvelope(envelope.bytes) else {
            for invitation in try store.invitations.all()
            where try GroupEnvelope.open(envelope.bytes, key: GroupState.decode(invitation.state).envelopeKey()) != nil {
                throw MessengerError.awaitingAcceptance("a group message for an invitation that waits with its sender's message request (`hush requests`)")
            }
            throw MessengerError.awaitingGroupKey("a group message for a group whose key has not arrived yet")
        }
        let head = try SenderKeyMessageHead(of: message)
        guard let stored = try store.groups.chain(epoch: head.epoch, signingKey: head.signingKey.rawRepresentation, groupRow: group.id) else {
            // A chain of an earlier epoch that we do not hold will never come
            // (a removed member's, or one we forgot): refused, not waited for.
            guard head.epoch >= group.epoch else {
                throw MessengerError.protocolFailure("a group message under a sender key this device no longer holds (an earlier membership)")
            }
            throw MessengerError.awaitingGroupKey("a group message whose sender's key has not arrived yet")
        }
        let sender = try IdentityKey(rawRepresentation: stored.memberKey)
        guard sender != me else { throw MessengerError.protocolFailure("a group message signed with our own chain") }
        let chain = try SenderKeyChain.deserialize(stored.chain)
        let plaintext = try chain.decrypt(message)
        try store.groups.saveChain(chain.serialized(), epoch: stored.epoch, signingKey: stored.signingKey, memberKey: stored.memberKey,
                                   stateDigest: stored.stateDigest, groupRow: group.id)
        let content = try Content(decoding: plaintext)
        switch content.body {
        case .text, .attachment: break
        default: throw MessengerError.protocolFailure("only texts and files travel as group messages")
        }
        try apply(content, try senderContact(sender, in: group), group)
    }

    /// The contact of a member whose chain we hold. Its chain came over a
    /// pairwise session, so a missing contact was removed on this device
    /// (`hush contact remove`) while the member stayed in the group: waiting
    /// would wait for ever, so the record is made again on the admins' word,
    /// as for any member (a member whose messages should go unseen is
    /// blocked, not removed). Someone in none of the memberships we hold
    /// cannot have a chain (removed members' chains are forgotten): refused.
    private func senderContact(_ sender: IdentityKey, in group: StoredGroup) throws -> Contact {
        if let contact = try contact(of: sender) { return contact }
        guard let member = try keptStates(group).lazy.compactMap({ $0.member(sender) }).first else {
            throw MessengerError.protocolFailure("a group message from someone in none of the group's memberships held here")
        }
        try ensureContact(for: member)
        guard let contact = try contact(of: sender) else { throw MessengerError.missingLocalState("the contact of a group member") }
        return contact
    }

    /// The group message inside and its group, trying every state we hold.
    private func openEnvelope(_ envelope: [UInt8]) throws -> ([UInt8], StoredGroup)? {
        for group in try store.groups.active() {
            for state in try keptStates(group) {
                if let message = try GroupEnvelope.open(envelope, key: state.envelopeKey()) { return (message, group) }
            }
        }
        return nil
    }

    /// A member's receipt for one of our group messages. Returns the
    /// message's new overall status when every member reached it.
    func recordReceipt(_ clientMessageID: MessageID, status: MessageStatus, from contact: Contact) throws -> (StoredMessage, StoredGroup)? {
        guard let message = try store.messages.message(clientMessageId: clientMessageID.description), message.direction == .outgoing,
              let group = try store.groups.group(conversationId: message.conversationId) else { return nil }
        let receipts = try store.groups.receipts(messageId: message.id)
        guard receipts.contains(where: { $0.memberKey == contact.identityKey }) else { return nil }
        try store.groups.recordReceipt(messageId: message.id, memberKey: contact.identityKey, status: status.rawValue)
        return (message, group)
    }

    // MARK: State

    /// Makes `state` current in `group`: keeps it (to open envelopes sealed
    /// under it), gives every member a contact record, makes our chain for
    /// it and queues its distribution to every other member; `announce`
    /// (our own change) also queues the state itself to every member, and
    /// to members `previous` had and `state` drops, the state without its
    /// secret so they learn they were removed and open nothing after.
    private func adopt(_ state: GroupState, in group: StoredGroup, announce: Bool, previous: GroupState?) throws {
        let now = dependencies.clock.now()
        try store.groups.setState(state.encoded, epoch: state.epoch, groupRow: group.id)
        try store.groups.keepState(state.encoded, digest: state.digest, epoch: state.epoch, groupRow: group.id)
        // What was in flight under the epoch before this one may still arrive; nothing older.
        if state.epoch > 1 { try store.groups.forgetEpochs(below: state.epoch - 1, groupRow: group.id) }
        // A member no longer in the group writes nothing more to it, not even
        // under the earlier state's chain that is kept for messages in flight.
        if let previous {
            for gone in previous.members where state.member(gone.identityKey) == nil {
                try store.groups.forgetChains(of: gone.identityKey.rawRepresentation, groupRow: group.id)
            }
        }
        let others = state.members.filter { $0.identityKey != me }
        for member in others { try ensureContact(for: member) }
        if announce {
            let update = Content(id: MessageID.random(using: dependencies.random), sentAt: UInt64(now), body: .groupUpdate(state))
            for member in others { try queue(update, to: member.identityKey, group: group) }
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
        let chain = try ownChains.chain(for: state, in: group)
        try ownChains.save(chain, for: state, in: group)
        let distribution = Content(id: MessageID.random(using: dependencies.random), sentAt: UInt64(now),
                                   body: .senderKeyDistribution(try chain.distribution()))
        for member in others { try queue(distribution, to: member.identityKey, group: group) }
    }

    private func keptStates(_ group: StoredGroup) throws -> [GroupState] {
        try store.groups.keptStates(groupRow: group.id).map { try GroupState.decode($0) }
    }

    private func queue(_ content: Content, to member: IdentityKey, group: StoredGroup) throws {
        try store.groups.queueDelivery(try content.encoded(), to: member.rawRepresentation, groupRow: group.id,
                                       at: dependencies.clock.now())
    }

    /// A member we have no contact for gets one, named after the label the
    /// admin gave it, accepted (an admin we accepted vouched for it), with
    /// no session yet; a member filed as a message request is accepted.
    private func ensureContact(for member: GroupState.Member) throws {
        if let existing = try contact(of: member.identityKey) {
            if existing.standing == .requested { try store.contacts.setStanding(.accepted, contactId: existing.id) }
            return
        }
        let address = member.identityKey.address.description
        let base = member.label.isEmpty ? "member-" + String(address.dropFirst(5).prefix(8)) : member.label
        var name = base
        var suffix = 2
        while try store.contacts.contact(named: name) != nil || store.groups.group(named: name) != nil {
            name = base + "-\(suffix)"
            suffix += 1
        }
        _ = try store.contacts.add(name: name, address: address, identityKey: member.identityKey.rawRepresentation,
                                   standing: .accepted, at: dependencies.clock.now())
    }

    private func forgetKeysKeepingDeliveries(_ group: StoredGroup) throws {
        let deliveries = try store.groups.pendingDeliveries().filter { $0.groupRow == group.id }
        try store.groups.forgetKeys(groupRow: group.id)
        for delivery in deliveries {
            try store.groups.queueDelivery(delivery.content, to: delivery.memberKey, groupRow: group.id, at: dependencies.clock.now())
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

    /// A group name not yet used here (an invitation may collide with one we have).
    private func freeGroupName(_ wanted: String) throws -> String {
        var name = wanted
        var suffix = 2
        while try store.groups.group(named: name) != nil {
            name = wanted + "-\(suffix)"
            suffix += 1
        }
        return name
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

    private static func checkName(_ name: String) throws {
        guard (1...GroupLimits.maxNameLength).contains(name.utf8.count) else {
            throw MessengerError.groupRefused("a group name is 1 to \(GroupLimits.maxNameLength) bytes")
        }
        guard !name.hasPrefix("contact:"), !name.hasPrefix("group:") else {
            throw MessengerError.groupRefused("a group name cannot start with 'contact:' or 'group:'")
        }
    }
}
