import HushCrypto
import HushProtocol
import HushStore

/// A large group's messages (docs/PROTOCOL.md §18.4): ours encrypted once
/// with our derived chain for the current state and sealed as one group
/// envelope for every other member; a member's opened with that member's
/// derived chain after its binding and signature verify. Nothing is
/// distributed and no receipt is owed. Runs inside the caller's transaction.
struct LargeGroupMessages {
    private let dependencies: MessengerDependencies
    private var store: MessageStore { dependencies.store }
    private var me: IdentityKey { dependencies.identity.publicKey }

    init(_ dependencies: MessengerDependencies) {
        self.dependencies = dependencies
    }

    /// The contents a large group carries: the messages history shows.
    /// Reactions, edits, deletions and timers act on other members' records
    /// by their contact, which a large group does not make (§18.4): refused.
    static func carries(_ body: ContentBody) -> Bool {
        switch body {
        case .text, .reply, .attachment, .expiring: true
        default: false
        }
    }

    /// The state kept for a large group (current, or one of the kept ones).
    func current(_ group: StoredGroup) throws -> KeptLargeGroupState {
        try KeptLargeGroupState.decode(group.state)
    }

    func kept(_ group: StoredGroup) throws -> [KeptLargeGroupState] {
        try store.groups.keptStates(groupRow: group.id).map(KeptLargeGroupState.decode)
    }

    // MARK: Sending

    /// `content` encrypted once under our chain for the current state, as a
    /// group envelope, and every other member it goes to. Refused in a group
    /// we are not in, alone in, or where a member we have a contact for
    /// changed its key (§18.2). Without our chain for the current state (a
    /// restored account, §18.4) nothing is sent: `LargeGroups.askForNewStates`
    /// asks an admin for the next state, in a transaction of its own.
    func encrypt(_ content: Content, in group: StoredGroup) throws -> (envelope: [UInt8], recipients: [IdentityKey]) {
        try group.requireMember()
        try dependencies.requireLargeGroupDevice(group.name)
        guard Self.carries(content.body) else {
            throw MessengerError.groupRefused("a large group carries texts, replies and files only (no reactions, edits, deletions or timers)")
        }
        let kept = try current(group)
        let recipients = kept.state.members.map(\.identityKey).filter { $0 != me }
        guard !recipients.isEmpty else { throw MessengerError.aloneInGroup(group: group.name) }
        for key in recipients {
            if let contact = try store.contacts.contact(identityKey: key.rawRepresentation), contact.verification == .changed {
                throw MessengerError.memberIdentityChanged(group: group.name, member: contact.name)
            }
        }
        guard let stored = try store.groups.memberChain(epoch: kept.epoch, memberKey: me.rawRepresentation, groupRow: group.id),
              case let chain = try LargeGroupChain.deserialize(stored), chain.isOwn else {
            throw Self.waitingForNewState(group)
        }
        let message = try chain.encrypt(try content.encoded())
        let envelope = try GroupEnvelope.seal(message, key: kept.envelopeKey, using: dependencies.random)
        try store.groups.saveMemberChain(chain.serialized(), epoch: kept.epoch, memberKey: me.rawRepresentation, groupRow: group.id)
        return (envelope, recipients)
    }

    static func waitingForNewState(_ group: StoredGroup) -> MessengerError {
        .groupRefused("this device lost its place in '\(group.name)' (a restore): an admin is asked for a new state, and nothing is sent until it arrives")
    }

    // MARK: Receiving

    /// The group message in `envelope` if a kept state of `group` opens it.
    func openEnvelope(_ envelope: [UInt8], in group: StoredGroup) throws -> [UInt8]? {
        for kept in try kept(group) {
            if let message = try GroupEnvelope.open(envelope, key: kept.envelopeKey) { return message }
        }
        return nil
    }

    /// Opens a member's message with that member's derived chain: the head
    /// must be a large group's (version 0x02), the member in the state of
    /// its epoch and not us; `LargeGroupChain` verifies the binding and the
    /// signature before deriving anything and takes one signing key per
    /// member and state. Returns the content and its author.
    func open(_ message: [UInt8], in group: StoredGroup) throws -> (Content, IdentityKey) {
        guard message.first == LargeGroupMessageHead.version else {
            throw MessengerError.protocolFailure("a sender-key message (version 1) in a large group")
        }
        let head = try LargeGroupMessageHead(of: message)
        guard head.member != me else { throw MessengerError.protocolFailure("a large group message naming us as its author") }
        guard let stored = try store.groups.memberChain(epoch: head.epoch, memberKey: head.member.rawRepresentation, groupRow: group.id) else {
            // An epoch we have not reached may still come; a member of an
            // earlier one we hold no chain for (removed, or forgotten) never will.
            guard head.epoch > group.epoch else {
                throw MessengerError.protocolFailure("a large group message from someone who is not a member of its state")
            }
            throw MessengerError.awaitingGroupKey("a large group message of a state that has not arrived yet")
        }
        let chain = try LargeGroupChain.deserialize(stored)
        let plaintext = try chain.decrypt(message)
        try store.groups.saveMemberChain(chain.serialized(), epoch: head.epoch, memberKey: head.member.rawRepresentation, groupRow: group.id)
        let content = try Content(decoding: plaintext)
        guard Self.carries(content.body) else {
            throw MessengerError.protocolFailure("a large group message that is not a text, reply or file")
        }
        return (content, head.member)
    }
}
