import Foundation

/// Where an account's home stands with its relay (docs/PROTOCOL.md §19.4:
/// one home per key), as this home knows it without asking the relay.
public enum RelayRegistration: Sendable, Equatable {
    /// Not registered with a relay (none configured, or `hush register` not run yet).
    case notRegistered
    /// Registered, and not known to be replaced: the relay serves this home.
    case registered
    /// Restored from a backup and not registered since (the relay was
    /// unreachable at the restore): it sends and fetches nothing until
    /// `startMissingSessions()` registers it, and until then the relay still
    /// serves the home the backup was made from.
    case restoredNotRegistered
    /// Another home of this key (a backup restored elsewhere, or a copy of
    /// the directory) registered at this date: this home fetches and sends
    /// nothing more; its history stays readable.
    case replaced(at: Date)
}

extension HushAccount {
    /// Where this home stands with its relay, from what it recorded (asks
    /// the relay nothing: a replacement is learned at the next relay call).
    public func relayRegistration() async throws(HushError) -> RelayRegistration {
        if let replaced = await replacedAt() { return .replaced(at: replaced) }
        return try await guarded {
            if try await messenger.isRestoredNotRegistered() { return .restoredNotRegistered }
            return try await messenger.isRegistered() ? .registered : .notRegistered
        }
    }
}
