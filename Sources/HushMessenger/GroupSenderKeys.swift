import HushCrypto
import HushProtocol
import HushStore

/// Members' sender chains (docs/PROTOCOL.md §18.3): kept from the
/// distributions they seal to us over our pairwise sessions, and used to
/// open their group messages. Runs inside the caller's transaction.
final class GroupSenderKeys {
    private let dependencies: MessengerDependencies
    private let adoption: GroupStateAdoption
    private let ownChains: OwnSenderChains
    private let largeGroupMessages: LargeGroupMessages
    private let ownDevices: OwnDevices
    private var store: MessageStore { dependencies.store }
    private var me: IdentityKey { dependencies.identity.publicKey }

    init(_ dependencies: MessengerDependencies, adoption: GroupStateAdoption, ownDevices: OwnDevices) {
        self.dependencies = dependencies
        self.adoption = adoption
        self.ownDevices = ownDevices
        ownChains = OwnSenderChains(dependencies)
        largeGroupMessages = LargeGroupMessages(dependencies)
    }

    /// Keeps a member's chain. Its signature is checked first, before
    /// anything is looked up or kept (docs/PROTOCOL.md §18.1): one that does
    /// not verify for `contact` (another member's signing key, a distribution
    /// passed on, an altered one) is refused as invalid content, so the
    /// envelope is set aside with the reason, and the signing key's real
    /// member can still give its chain. A distribution for a group or epoch
    /// we do not hold yet (its state is still on its way from an admin) is
    /// ours to wait for: `missingLocalState` keeps the envelope at the relay
    /// and the next sync tries it again.
    /// `device`: the contact's device whose session carried it (nil: the
    /// account-key session), the one to ask when a message it signs does
    /// not open (§20.12).
    func applyDistribution(_ distribution: SenderKeyDistribution, from contact: Contact, device: IdentityKey? = nil) throws {
        let sender = try IdentityKey(rawRepresentation: contact.identityKey)
        let chain = try Self.verifiedChain(distribution, from: sender)
        guard let group = try store.groups.group(groupID: distribution.groupID) else {
            if try store.invitations.invitation(groupID: distribution.groupID) != nil {
                throw MessengerError.awaitingAcceptance("a group key for an invitation that waits with its sender's message request")
            }
            throw MessengerError.awaitingGroupKey("a group key for a group whose invitation has not arrived yet")
        }
        guard group.standing == .member else { return }
        guard !group.isLarge else {
            throw MessengerError.protocolFailure("a sender key distribution for a large group, whose chains are derived, never distributed")
        }
        try keep(chain, of: distribution, member: sender, in: group, as: sender.rawRepresentation, from: device?.rawRepresentation)
    }

    /// Keeps `chain` (verified from `distribution`) under `owner` when
    /// `member` is in the group's state of its epoch; one for an epoch whose
    /// state has not arrived waits for it. A chain we hold already is kept
    /// as it is: a distribution given again (a member handing its chain over
    /// on a new session, a resend) would move it back, or past the skipped
    /// keys we keep, and only the first one says whose it is.
    private func keep(_ chain: SenderKeyChain, of distribution: SenderKeyDistribution, member: IdentityKey, in group: StoredGroup,
                      as owner: [UInt8], from device: [UInt8]? = nil) throws {
        let states = try adoption.keptStates(group)
        guard states.contains(where: { $0.epoch == distribution.epoch && $0.member(member) != nil }) else {
            if distribution.epoch > group.epoch {
                throw MessengerError.awaitingGroupKey("a group key for an epoch whose membership has not arrived yet")
            }
            return
        }
        // A member the current state no longer lists was removed. Its chain of an earlier state
        // that lists it is kept while its removal's closure stands (`closeChains`): a distribution
        // still on its way when the removal arrived (a session with the member started late) is
        // what opens the messages it sent while a member, and the closure keeps the chain from
        // opening anything the relay stored after the removal, however late it is given (or given
        // again, as a new session hands chains over). Only of its last membership: a member
        // removed, added and removed again must not give a chain of the first membership, which
        // the second closure would let open what it sent while out of the group (a review).
        // Without a closure (forgotten, 30 days on) nothing of its is taken.
        if try group.currentState().member(member) == nil {
            guard let removedAt = try store.groups.closureEpoch(memberKey: member.rawRepresentation, groupRow: group.id),
                  Self.listedThroughout(member, from: distribution.epoch, below: removedAt, in: states) else { return }
        }
        guard try store.groups.chain(epoch: distribution.epoch, signingKey: distribution.signingKey.rawRepresentation,
                                     groupRow: group.id) == nil else { return }
        try store.groups.saveChain(chain.serialized(), epoch: chain.epoch, signingKey: chain.signingKey.rawRepresentation,
                                   memberKey: owner, stateDigest: nil, groupRow: group.id, deviceKey: device)
    }

    /// Whether every state of the epochs `from` up to (not including)
    /// `below` is held and lists `member`: its one membership without a gap.
    static func listedThroughout(_ member: IdentityKey, from epoch: UInt32, below end: UInt32, in states: [GroupState]) -> Bool {
        guard epoch < end else { return false }
        return (epoch..<end).allSatisfy { wanted in states.contains { $0.epoch == wanted && $0.member(member) != nil } }
    }

    /// Keeps the chain of another device of ours (§20.17), which `device`
    /// (its key at the relay) sealed to us on the session between the two:
    /// signed for our account, kept under the device's key, so that it is
    /// never taken for this device's own chain (`OwnSenderChains`) and what
    /// it seals shows as ours. A group we do not hold yet waits for its
    /// state, as a member's distribution does.
    func applyOwnDeviceDistribution(_ distribution: SenderKeyDistribution, device: IdentityKey) throws {
        let chain = try Self.verifiedChain(distribution, from: me)
        guard let group = try store.groups.group(groupID: distribution.groupID) else {
            throw MessengerError.awaitingGroupKey("a group key from another device of this account, for a group whose state has not arrived yet")
        }
        guard group.standing == .member, !group.isLarge else { return }
        try keep(chain, of: distribution, member: me, in: group, as: device.rawRepresentation)
    }

    /// The chain `distribution` gives, its signature checked for `member`
    /// first (before anything is looked up or kept); refused as invalid
    /// content otherwise.
    private static func verifiedChain(_ distribution: SenderKeyDistribution, from member: IdentityKey) throws -> SenderKeyChain {
        do {
            return try SenderKeyChain(distribution: distribution, from: member)
        } catch {
            throw refusal(error)
        }
    }

    /// The reason a distribution is refused, told apart from other failures.
    private static func refusal(_ error: any Error) -> any Error {
        guard case .invalidSignature? = error as? ProtocolError else { return error }
        return MessengerError.protocolFailure(
            "a sender key distribution whose signature does not verify for its sender, group and epoch (another member's signing key, or altered): refused, nothing kept")
    }

    /// Queues our current chain of every group `contact` shares with us
    /// (both in its current state) for them, at its current iteration: on a
    /// new session from them (§11), since a peer starting over may have lost
    /// every chain it held, as a restored account has (§19.4). A peer who
    /// still holds it ignores it.
    func handOverOwnChains(to contact: Contact) throws {
        try ownChains.handOver(to: contact)
    }

    /// Our groups and chains, for our other devices (`OwnSenderChains.handOverGroupsToOwnDevices`).
    func handOverGroupsToOwnDevices() throws {
        try ownChains.handOverGroupsToOwnDevices()
    }

    /// The member whose chain signed the group message in `envelope` when
    /// it could not be opened because its key is gone (below the chain's
    /// iteration: sealed before the point we were given it, §18.1 step 3),
    /// so that they can be asked to send it again (§10.1). Nil for anything
    /// else: an envelope no state opens, a chain we do not hold, a signature
    /// that does not verify.
    func memberOfUnreadableMessage(_ envelope: [UInt8]) -> (account: IdentityKey, device: IdentityKey?)? {
        guard let (message, group) = try? openEnvelope(envelope), let head = try? SenderKeyMessageHead(of: message),
              let stored = try? store.groups.chain(epoch: head.epoch, signingKey: head.signingKey.rawRepresentation, groupRow: group.id),
              let chain = try? SenderKeyChain.deserialize(stored.chain) else { return nil }
        do {
            _ = try chain.decrypt(message)
            return nil
        } catch .decryptionFailed {
            // Step 3 or the AEAD, after the signature verified: the chain's member wrote it.
            // The device whose session carried the chain sealed it, and alone keeps it to send again (§20.12).
            guard let member = try? IdentityKey(rawRepresentation: stored.memberKey) else { return nil }
            return (member, stored.deviceKey.flatMap { try? IdentityKey(rawRepresentation: $0) })
        } catch {
            return nil
        }
    }

    // MARK: Receiving

    /// Opens a group envelope with the keys of the states we hold and
    /// decrypts the group message with its sender's chain; stores a text or
    /// an attachment in the group's conversation and queues a delivery
    /// receipt to its sender over their pairwise session.
    /// Returns false, having applied nothing, for an envelope of a group we
    /// are no longer in (`GroupDeparture`): it is dropped unread.
    func open(_ envelope: MailboxEnvelope, applying apply: (Content, Contact, StoredGroup) throws -> Void,
              applyingOwn applyOwn: (Content, StoredGroup) throws -> Void,
              applyingLarge applyLarge: (Content, IdentityKey, StoredGroup) throws -> Void) throws -> Bool {
        guard let (message, group) = try openEnvelope(envelope.bytes) else {
            for invitation in try store.invitations.all()
            where try GroupEnvelope.open(envelope.bytes, key: GroupState.decode(invitation.state).envelopeKey()) != nil {
                throw MessengerError.awaitingAcceptance("a group message for an invitation that waits with its sender's message request")
            }
            // Sealed by a member who had not yet learned that we left or were removed: nothing will ever open it.
            if try GroupDeparture(dependencies: dependencies).isFormerGroupEnvelope(envelope.bytes) { return false }
            throw MessengerError.awaitingGroupKey("a group message for a group whose key has not arrived yet")
        }
        if group.isLarge {
            let (content, author) = try largeGroupMessages.open(message, in: group)
            try applyLarge(content, author, group)
            return true
        }
        let head = try SenderKeyMessageHead(of: message)
        guard let stored = try store.groups.chain(epoch: head.epoch, signingKey: head.signingKey.rawRepresentation, groupRow: group.id) else {
            // A chain of an earlier epoch that we do not hold will never come
            // (a removed member's, or one we forgot): refused, not waited for.
            guard head.epoch >= group.epoch else {
                // A member removed since may have sent it while still a member, its chain still on its way
                // (`keep` takes it, closed): waited for while a closure could open it.
                let states = try adoption.keptStates(group)
                let removed = try store.groups.closuresThatMayOpen(epoch: head.epoch, storedAt: envelope.relayTimestamp, groupRow: group.id)
                if try removed.contains(where: { try Self.listedThroughout(IdentityKey(rawRepresentation: $0.memberKey), from: head.epoch,
                                                                            below: $0.belowEpoch, in: states) }) {
                    throw MessengerError.awaitingGroupKey("a group message of an earlier membership, whose sender (removed since) has not given its key here yet")
                }
                throw MessengerError.protocolFailure("a group message under a sender key this device no longer holds (an earlier membership)")
            }
            throw MessengerError.awaitingGroupKey("a group message whose sender's key has not arrived yet")
        }
        guard stored.memberKey != dependencies.transportIdentity.publicKey.rawRepresentation else {
            throw MessengerError.protocolFailure("a group message signed with our own chain")
        }
        // A removed member's chain opens what the relay stored before the removal, and nothing after it.
        switch try store.groups.chainClosure(memberKey: stored.memberKey, epoch: stored.epoch, groupRow: group.id) {
        case nil:
            break
        case .pending:
            // Our removal has not reached the relay yet, so its time there is not known: opened once it is.
            throw MessengerError.awaitingGroupKey("a group message from a member removed here, which waits until the removal reaches the relay")
        case let .closed(at)?:
            guard envelope.relayTimestamp <= at else {
                throw MessengerError.protocolFailure("a group message from a member removed before it was sent")
            }
        }
        // A revoked device's chain opens what the relay stored by the revocation, and nothing after it
        // (§20.14): the device keeps its chains, and a rekey does not undo an earlier epoch's.
        if let revokedAt = try revocationTime(ofChainKeptUnder: stored.memberKey, device: stored.deviceKey),
           UInt64(clamping: envelope.relayTimestamp) > revokedAt {
            throw MessengerError.protocolFailure("a group message from a device its account revoked before it was sent")
        }
        // Another device of ours (§20.17): its chain is kept under its key at the relay (the account key
        // for the first device), and what it sealed is ours, shown as sent (a device revoked since too,
        // for what it sent before).
        let fromOwnDevice = try stored.memberKey == me.rawRepresentation || ownDevices.isListedDevice(stored.memberKey)
        let sender = try IdentityKey(rawRepresentation: stored.memberKey)
        let chain = try SenderKeyChain.deserialize(stored.chain)
        let plaintext = try chain.decrypt(message)
        try store.groups.saveChain(chain.serialized(), epoch: stored.epoch, signingKey: stored.signingKey, memberKey: stored.memberKey,
                                   stateDigest: stored.stateDigest, groupRow: group.id, deviceKey: stored.deviceKey)
        let content = try Content(decoding: plaintext)
        switch content.body {
        case .text, .attachment, .reply, .reaction, .edit, .deletion, .disappearingTimer, .expiring: break
        default: throw MessengerError.protocolFailure("only texts, files, replies, reactions, edits, deletions and timers travel as group messages")
        }
        if fromOwnDevice {
            try applyOwn(content, group)
            return true
        }
        try apply(content, try senderContact(sender, in: group), group)
        return true
    }

    /// When the device that wrote under a chain kept under `memberKey` was
    /// revoked (§20.14), by the list held of its account; nil while it is
    /// active. Our own devices' chains are kept under their keys at the
    /// relay (the account key for the first device, the entry that keeps
    /// it); a contact's under its account, with `device` the device whose
    /// session carried it (nil: the account key's, §20.13).
    private func revocationTime(ofChainKeptUnder memberKey: [UInt8], device: [UInt8]?) throws -> UInt64? {
        let entry: DeviceListEntry?
        let ownList = try ownDevices.list()
        if memberKey == me.rawRepresentation {
            entry = ownList?.accountKeyDevice
        } else if let own = ownList?.entries.first(where: { $0.key.rawRepresentation == memberKey }) {
            entry = own
        } else if let contact = try store.contacts.contact(identityKey: memberKey), let list = try dependencies.heldDeviceList(of: contact) {
            entry = device.map { key in list.entries.first { $0.key.rawRepresentation == key } } ?? list.accountKeyDevice
        } else {
            entry = nil
        }
        guard let entry, !entry.isActive else { return nil }
        return entry.revokedAt
    }

    /// The contact of a member whose chain we hold. Its chain came over a
    /// pairwise session, so a missing contact was removed on this device
    /// (`hush contact remove`) while the member stayed in the group: waiting
    /// would wait for ever, so the record is made again on the admins' word,
    /// as for any member (a member whose messages should go unseen is
    /// blocked, not removed). Someone in none of the memberships we hold
    /// cannot have a chain (removed members' chains are forgotten): refused.
    private func senderContact(_ sender: IdentityKey, in group: StoredGroup) throws -> Contact {
        if let contact = try store.contacts.contact(identityKey: sender.rawRepresentation) { return contact }
        guard let member = try adoption.keptStates(group).lazy.compactMap({ $0.member(sender) }).first else {
            throw MessengerError.protocolFailure("a group message from someone in none of the group's memberships held here")
        }
        try adoption.ensureContact(for: member)
        guard let contact = try store.contacts.contact(identityKey: sender.rawRepresentation) else { throw MessengerError.missingLocalState("the contact of a group member") }
        return contact
    }

    /// The group message inside and its group, trying every state we hold:
    /// every group's current state first (where nearly every envelope
    /// opens), then the earlier epochs kept for members who have not caught up.
    private func openEnvelope(_ envelope: [UInt8]) throws -> ([UInt8], StoredGroup)? {
        var earlier: [(GroupState, StoredGroup)] = []
        for group in try store.groups.active() {
            if group.isLarge {
                if let message = try largeGroupMessages.openEnvelope(envelope, in: group) { return (message, group) }
                continue
            }
            for state in try adoption.keptStates(group) {
                guard state.epoch == group.epoch else {
                    earlier.append((state, group))
                    continue
                }
                if let message = try GroupEnvelope.open(envelope, key: state.envelopeKey()) { return (message, group) }
            }
        }
        for (state, group) in earlier {
            if let message = try GroupEnvelope.open(envelope, key: state.envelopeKey()) { return (message, group) }
        }
        return nil
    }
}
