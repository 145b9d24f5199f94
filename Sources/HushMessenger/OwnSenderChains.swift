import HushCrypto
import HushProtocol
import HushStore

/// Our own sender chain for each group state (docs/PROTOCOL.md §18): made
/// at iteration 0 when `GroupStateAdoption` makes a state current (its distribution goes to
/// every other member), and advanced by every group message `Sealer`
/// encrypts under it.
struct OwnSenderChains {
    private let dependencies: MessengerDependencies
    private var store: MessageStore { dependencies.store }
    private var me: IdentityKey { dependencies.identity.publicKey }

    init(_ dependencies: MessengerDependencies) {
        self.dependencies = dependencies
    }

    /// Our chain for `state`, made when there is none (iteration 0).
    func chain(for state: GroupState, in group: StoredGroup) throws -> SenderKeyChain {
        if let stored = try store.groups.ownChain(stateDigest: state.digest, memberKey: me.rawRepresentation, groupRow: group.id) {
            return try SenderKeyChain.deserialize(stored.chain)
        }
        return try SenderKeyChain.create(groupID: state.groupID, epoch: state.epoch, using: dependencies.random)
    }

    func save(_ chain: SenderKeyChain, for state: GroupState, in group: StoredGroup) throws {
        try store.groups.saveChain(chain.serialized(), epoch: chain.epoch, signingKey: chain.signingKey.rawRepresentation,
                                   memberKey: me.rawRepresentation, stateDigest: state.digest, groupRow: group.id)
    }
}
