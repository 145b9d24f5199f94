import HushProtocol
import HushStore

/// What this device's standing in a group allows, asked by `GroupMembership` before
/// a change and by `Sealer` before a group message.
extension StoredGroup {
    /// The membership this device holds now.
    /// The membership this device holds now, of a small group (§18.2); a
    /// large group's is a `KeptLargeGroupState` (§18.4).
    func currentState() throws -> GroupState {
        guard !isLarge else { throw MessengerError.groupRefused("'\(name)' is a large group: this does not apply to it") }
        return try GroupState.decode(state)
    }

    /// Refuses a group we left or were removed from: its history stays readable, nothing more is sent.
    func requireMember() throws {
        switch standing {
        case .member: return
        case .left: throw MessengerError.groupRefused("you left '\(name)'; its history stays readable")
        case .removed: throw MessengerError.groupRefused("an admin removed you from '\(name)'; its history stays readable")
        }
    }
}
