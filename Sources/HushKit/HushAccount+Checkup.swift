import Foundation

/// The account's own health: the database checks and what was set aside.
extension HushAccount {
    /// Runs the database's integrity checks (SQLite's, and SQLCipher's
    /// per-page check where the library has it) and reads its schema version.
    public func checkup() async throws(HushError) -> DatabaseCheckup {
        try await guarded { DatabaseCheckup(try await messenger.doctor()) }
    }

    /// When the account's device list this device holds revoked it
    /// (docs/PROTOCOL.md §20.14); nil while it is active. A revoked device
    /// reads what it holds and writes nothing: every contact holding that
    /// list sets aside what it would send.
    public func revokedAt() async throws(HushError) -> Date? {
        try await guarded { try await messenger.thisDeviceRevokedAt().map { Date(timeIntervalSince1970: Double($0) / 1000) } }
    }

    /// The envelopes that could not be decrypted and were set aside, oldest first.
    public func setAsideEnvelopes() async throws(HushError) -> [SetAsideEnvelope] {
        try await guarded { try await messenger.quarantined().map(SetAsideEnvelope.init) }
    }
}
