import HushCrypto
import HushProtocol
import HushStore

/// Our own sender chain for each group state (docs/PROTOCOL.md §18): made
/// at iteration 0 when `GroupStateAdoption` makes a state current, or when
/// there is none for the current state (a restored account: a backup holds
/// no chains, §19.4); its distribution goes to every other member; and
/// advanced by every group message `Sealer` encrypts under it.
struct OwnSenderChains {
    private let dependencies: MessengerDependencies
    private var store: MessageStore { dependencies.store }
    private var me: IdentityKey { dependencies.identity.publicKey }

    init(_ dependencies: MessengerDependencies) {
        self.dependencies = dependencies
    }

    /// Our chain for `state`. When there is none, one is made (iteration 0),
    /// saved, and its distribution queued for every other member of `state`,
    /// so that nothing is ever sealed under a chain the members were not given.
    func chain(for state: GroupState, in group: StoredGroup) throws -> SenderKeyChain {
        if let stored = try store.groups.ownChain(stateDigest: state.digest, memberKey: me.rawRepresentation, groupRow: group.id) {
            return try SenderKeyChain.deserialize(stored.chain)
        }
        let chain = try SenderKeyChain.create(groupID: state.groupID, epoch: state.epoch, using: dependencies.random)
        try save(chain, for: state, in: group)
        try queueDistribution(of: chain, to: state.members.map(\.identityKey).filter { $0 != me }, group: group)
        return chain
    }

    /// Queues our chain for `state` at its current iteration for `members`
    /// (made, and then given to every other member, when there is none): a
    /// member who may have lost it (a new session, §11) reads what we send
    /// from now on.
    func distribute(for state: GroupState, in group: StoredGroup, to members: [IdentityKey]) throws {
        guard let stored = try store.groups.ownChain(stateDigest: state.digest, memberKey: me.rawRepresentation, groupRow: group.id) else {
            _ = try chain(for: state, in: group)
            return
        }
        try queueDistribution(of: try SenderKeyChain.deserialize(stored.chain), to: members, group: group)
    }

    func save(_ chain: SenderKeyChain, for state: GroupState, in group: StoredGroup) throws {
        try store.groups.saveChain(chain.serialized(), epoch: chain.epoch, signingKey: chain.signingKey.rawRepresentation,
                                   memberKey: me.rawRepresentation, stateDigest: state.digest, groupRow: group.id)
    }

    /// One distribution content, queued for each of `members` in
    /// `group_deliveries` (sealed over their pairwise sessions at the next flush).
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
