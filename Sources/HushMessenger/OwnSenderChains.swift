import HushCrypto
import HushProtocol
import HushStore

/// Our own sender chain for each group state (docs/PROTOCOL.md §18): made
/// at iteration 0 when `GroupStateAdoption` makes a state current, or when
/// there is none for the current state (a restored account: a backup holds
/// no chains, §19.4); its distribution goes to every other member; and
/// advanced by every group message `Sealer` encrypts under it.
///
/// Each device of the account has its own chain (§20.17), kept under the
/// device's key at the relay (the account key on the first device), so a
/// chain another device of ours gave us (kept under that device's key) is
/// never taken for ours: two devices sealing under one chain would reuse
/// its message keys. The distribution names the account, which members
/// know (§18.1).
struct OwnSenderChains {
    private let dependencies: MessengerDependencies
    private var store: MessageStore { dependencies.store }
    private var me: IdentityKey { dependencies.identity.publicKey }
    /// The key our chains are kept under: this device's at the relay.
    private var chainOwner: [UInt8] { dependencies.transportIdentity.publicKey.rawRepresentation }

    init(_ dependencies: MessengerDependencies) {
        self.dependencies = dependencies
    }

    /// Our chain for `state`. When there is none, one is made (iteration 0),
    /// saved, and its distribution queued for every other member of `state`,
    /// so that nothing is ever sealed under a chain the members were not given.
    func chain(for state: GroupState, in group: StoredGroup) throws -> SenderKeyChain {
        if let stored = try store.groups.ownChain(stateDigest: state.digest, memberKey: chainOwner, groupRow: group.id) {
            return try SenderKeyChain.deserialize(stored.chain)
        }
        let chain = try SenderKeyChain.create(groupID: state.groupID, epoch: state.epoch, using: dependencies.random)
        try save(chain, for: state, in: group)
        // To every other member, and to our other devices (our account as a member stands for them).
        try queueDistribution(of: chain, to: state.members.map(\.identityKey).filter { $0 != me } + [me], group: group)
        return chain
    }

    /// Queues our chain for `state` at its current iteration for `members`
    /// (made, and then given to every other member, when there is none): a
    /// member who may have lost it (a new session, §11) reads what we send
    /// from now on.
    func distribute(for state: GroupState, in group: StoredGroup, to members: [IdentityKey]) throws {
        guard let stored = try store.groups.ownChain(stateDigest: state.digest, memberKey: chainOwner, groupRow: group.id) else {
            _ = try chain(for: state, in: group)
            return
        }
        try queueDistribution(of: try SenderKeyChain.deserialize(stored.chain), to: members, group: group)
    }

    /// Queues our current chain of every small group `contact` shares with
    /// us for them (and so for each of their devices, §20.17), at its
    /// current iteration: on a new session with them or one of their
    /// devices, which may not hold it. A holder ignores it.
    func handOver(to contact: Contact) throws {
        let peer = try IdentityKey(rawRepresentation: contact.identityKey)
        let now = dependencies.clock.now()
        for group in try store.groups.active() where !group.isLarge {
            let current = try group.currentState()
            guard current.member(me) != nil, current.member(peer) != nil else { continue }
            // The state first, from an admin: a device that joined the contact's account since may not hold the group.
            if current.isAdmin(me) {
                let update = Content(id: MessageID.random(using: dependencies.random), sentAt: UInt64(now), body: .groupUpdate(current))
                try store.groups.queueDelivery(try update.encoded(), to: peer.rawRepresentation, groupRow: group.id, at: now)
            }
            try distribute(for: current, in: group, to: [peer])
        }
    }

    /// Queues for our other devices (our account as a member stands for
    /// them, `GroupDeliveries`) our chain of every small group we are in,
    /// and the current state of those we administer (the others' states come
    /// from their admins, to each device): on a new session between two of
    /// our devices, since the other may have been linked after the group was
    /// made or changed. A device that holds them ignores them.
    func handOverGroupsToOwnDevices() throws {
        let now = dependencies.clock.now()
        for group in try store.groups.active() where !group.isLarge {
            let current = try group.currentState()
            guard current.member(me) != nil else { continue }
            if current.isAdmin(me) {
                let update = Content(id: MessageID.random(using: dependencies.random), sentAt: UInt64(now), body: .groupUpdate(current))
                try store.groups.queueDelivery(try update.encoded(), to: me.rawRepresentation, groupRow: group.id, at: now)
            }
            try distribute(for: current, in: group, to: [me])
        }
    }

    func save(_ chain: SenderKeyChain, for state: GroupState, in group: StoredGroup) throws {
        try store.groups.saveChain(chain.serialized(), epoch: chain.epoch, signingKey: chain.signingKey.rawRepresentation,
                                   memberKey: chainOwner, stateDigest: state.digest, groupRow: group.id)
    }

    /// Whether we hold our chain for `state`.
    func hasChain(for state: GroupState, in group: StoredGroup) throws -> Bool {
        try store.groups.ownChain(stateDigest: state.digest, memberKey: chainOwner, groupRow: group.id) != nil
    }

    /// One distribution content, queued for each of `members` in
    /// `group_deliveries` (sealed over their pairwise sessions at the next
    /// flush); `members` may name our own account, which stands for our
    /// other devices (`GroupDeliveries`).
    private func queueDistribution(of chain: SenderKeyChain, to members: [IdentityKey], group: StoredGroup) throws {
        guard !members.isEmpty else { return }
        let now = dependencies.clock.now()
        let content = Content(id: MessageID.random(using: dependencies.random), sentAt: UInt64(now),
                              body: .senderKeyDistribution(try chain.distribution(from: me)))
        let encoded = try content.encoded()
        for member in members {
            try store.groups.queueDelivery(encoded, to: member.rawRepresentation, groupRow: group.id, at: now)
        }
    }
}
