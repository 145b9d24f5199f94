/// The account's own health: the database checks and what was set aside.
extension HushAccount {
    /// Runs the database's integrity checks (SQLite's, and SQLCipher's
    /// per-page check where the library has it) and reads its schema version.
    public func checkup() async throws(HushError) -> DatabaseCheckup {
        try await guarded { DatabaseCheckup(try await messenger.doctor()) }
    }

    /// The envelopes that could not be decrypted and were set aside, oldest first.
    public func setAsideEnvelopes() async throws(HushError) -> [SetAsideEnvelope] {
        try await guarded { try await messenger.quarantined().map(SetAsideEnvelope.init) }
    }
}
