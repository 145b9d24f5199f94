import HushDatabase

extension Schema {
    /// Version 41: a removed member's chains are closed, not forgotten. A
    /// group message its author sent while still a member, and which reached
    /// the relay before the removal did, arrives after the removal at the
    /// admin who made it (offline meanwhile) and at a member whose mailbox
    /// held the removal first: with the chains forgotten at the removal it
    /// was refused, so members' histories differed (a walkthrough's loss).
    /// A row says that `member_key`'s chains of epochs below `below_epoch`
    /// open only what the relay stored by `closed_at`, the relay's time: of
    /// the envelope that brought the removal, or, for the admin who made it
    /// (`made_at`, its own clock), of its first deposit queued since, until
    /// which `closed_at` is null and such a message waits.
    static func addClosedMemberChains(_ db: Database) throws {
        try db.execute("""
            CREATE TABLE closed_member_chains(
                group_row INTEGER NOT NULL REFERENCES groups(id) ON DELETE CASCADE,
                member_key BLOB NOT NULL,
                below_epoch INTEGER NOT NULL,
                closed_at INTEGER,
                made_at INTEGER NOT NULL,
                PRIMARY KEY (group_row, member_key)
            ) WITHOUT ROWID;
            """)
    }
}
