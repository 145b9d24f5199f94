import HushCrypto
import HushProtocol
import HushStore

/// What `GroupStateAdoption` and `GroupMembership` queued for one member
/// (a state, a key, a leave notice), in `group_deliveries`: sealed over the
/// member's pairwise session at each flush, before `Dispatcher` posts,
/// starting that session first from the relay's bundle when we never wrote
/// to them. Queued work rather than a call from those parts, because
/// starting a session needs the relay and they run inside the caller's
/// transaction.
final class GroupDeliveries {
    private let dependencies: MessengerDependencies
    private let sessions: SessionStarter
    private let sealer: Sealer
    private var store: MessageStore { dependencies.store }

    init(_ dependencies: MessengerDependencies, sessions: SessionStarter, sealer: Sealer) {
        self.dependencies = dependencies
        self.sessions = sessions
        self.sealer = sealer
    }

    /// Whether `content` is a large group's state or rekey request for a
    /// member whose account key is retired (§20.14): large groups stay with
    /// the account key (§18.4), so nothing of them goes to its devices.
    private static func isLargeGroupState(_ content: [UInt8], toRetired contact: Contact,
                                          _ dependencies: MessengerDependencies) throws -> Bool {
        guard try dependencies.accountKeyRetired(contact), let decoded = try? Content(decoding: content) else { return false }
        switch decoded.body {
        case .largeGroupUpdate, .largeGroupRekey: return true
        default: return false
        }
    }

    /// Seals what waits for members over their pairwise sessions, starting
    /// sessions (a bundle from the relay) with members we never wrote to.
    /// A member we cannot reach now keeps its deliveries for the next flush.
    func sealPending(isolation: isolated (any Actor)? = #isolation) async {
        guard let pending = try? store.groups.pendingDeliveries(), !pending.isEmpty else { return }
        var unreachable: Set<[UInt8]> = []
        let account = dependencies.identity.publicKey.rawRepresentation
        for delivery in pending where !unreachable.contains(delivery.memberKey) {
            // Queued for our own account: a state or our chain for our other devices (§20.17), on the
            // sessions with them; a device without one yet gets them when its session starts (`OwnDevices`).
            if delivery.memberKey == account {
                try? store.write { store in
                    let conversation = try store.groups.group(row: delivery.groupRow)?.conversationId
                    if let conversation { try sealer.deviceFanOut.own.sealToEveryDevice(delivery.content, conversation: conversation) }
                    try store.groups.removeDelivery(id: delivery.id)
                }
                continue
            }
            guard let key = try? IdentityKey(rawRepresentation: delivery.memberKey) else {
                try? store.groups.removeDelivery(id: delivery.id)
                continue
            }
            do {
                let contact = try await sessions.contactWithSession(for: key)
                guard contact.standing != .blocked, try !Self.isLargeGroupState(delivery.content, toRetired: contact, dependencies) else {
                    try store.groups.removeDelivery(id: delivery.id)
                    continue
                }
                try store.write { store in
                    try sealer.seal(encodedContent: delivery.content, to: contact)
                    try store.groups.removeDelivery(id: delivery.id)
                }
            } catch {
                unreachable.insert(delivery.memberKey)
            }
        }
    }
}
