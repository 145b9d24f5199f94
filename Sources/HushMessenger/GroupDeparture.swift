import HushCrypto
import HushProtocol
import HushStore

/// What this device forgets when the account is no longer in a group
/// (removed by an admin, or left here or on another device), and the two
/// things it keeps (docs/PROTOCOL.md §18.2); the state it keeps to show the
/// group has its secret (a large group's: its envelope key) zeroed:
/// - when we left, what is queued for members (a leave notice, the state
///   we wrote without us as an admin) still goes out at the next flush:
///   without it the others would never learn that we left;
/// - the envelope keys of the states it held that listed us, until the
///   relay's retention ends: a member who had not learned of the change yet seals to us under
///   them, and such an envelope is dropped unread instead of waiting at the
///   relay, with a note at every sync, for a sender's key that never comes.
///   An envelope key opens only the outer layer; the chains are forgotten.
struct GroupDeparture {
    let dependencies: MessengerDependencies
    private var store: MessageStore { dependencies.store }

    /// Forgets `group`'s states, chains and derived chains, keeping the
    /// envelope keys of the states that listed us, and its queued deliveries
    /// when we left (a removed member's would tell the others nothing they
    /// need). The state kept to show the group loses what opens anything: an
    /// admin that left wrote the next state itself, and no one seals to us
    /// under that one.
    func forgetKeys(of group: StoredGroup, keepingDeliveries: Bool) throws {
        let me = dependencies.identity.publicKey
        let keys = try store.groups.keptStates(groupRow: group.id).compactMap { encoded -> [UInt8]? in
            if group.isLarge {
                guard let kept = try? KeptLargeGroupState.decode(encoded), kept.state.member(me) != nil else { return nil }
                return kept.envelopeKey.copyBytes()
            }
            guard let state = try? GroupState.decode(encoded), state.member(me) != nil else { return nil }
            return try? state.envelopeKey().copyBytes()
        }
        try store.groups.keepFormerEnvelopeKeys(keys, groupRow: group.id,
                                                until: dependencies.clock.now() + LiveSync.relayRetentionMilliseconds)
        try store.groups.forgetKeys(groupRow: group.id)
        if !keepingDeliveries { try store.groups.forgetDeliveries(groupRow: group.id) }
        try forgetSecretOfShownState(groupRow: group.id)
    }

    private func forgetSecretOfShownState(groupRow: Int64) throws {
        guard let shown = try store.groups.group(row: groupRow) else { return }
        let redacted: [UInt8]
        if shown.isLarge {
            redacted = try KeptLargeGroupState.decode(shown.state).forgettingEnvelopeKey().encoded
        } else {
            let state = try GroupState.decode(shown.state)
            redacted = try GroupState(groupID: state.groupID, epoch: state.epoch, secret: SecureBytes(count: GroupLimits.secretLength),
                                      name: state.name, members: state.members).encoded
        }
        try store.groups.setState(redacted, epoch: shown.epoch, groupRow: groupRow)
    }

    /// Whether `envelope` was sealed under a state of a group we are no
    /// longer in (and is to be dropped unread).
    func isFormerGroupEnvelope(_ envelope: [UInt8]) throws -> Bool {
        for former in try store.groups.formerEnvelopeKeys() {
            if try GroupEnvelope.open(envelope, key: SecureBytes(copying: former.key)) != nil { return true }
        }
        return false
    }
}
