import HushDatabase

extension Schema {
    /// Version 30: large groups (docs/PROTOCOL.md §18.4). A group is small
    /// (§18.1: distributed chains in `sender_chains`) or large for its whole
    /// life. A large group's chains are derived from its state's secret when
    /// the state is applied, every member's at once, and the secret is then
    /// forgotten: each member's chain is kept here by epoch and member (its
    /// signing key is learnt from the member's first message), and the
    /// group's `state` keeps only the envelope key beside the membership.
    static func addLargeGroups(_ db: Database) throws {
        try db.execute("""
            ALTER TABLE groups ADD COLUMN kind TEXT NOT NULL DEFAULT 'small' CHECK (kind IN ('small', 'large'));
            CREATE TABLE member_chains(
                group_row INTEGER NOT NULL REFERENCES groups(id) ON DELETE CASCADE,
                epoch INTEGER NOT NULL,
                member_key BLOB NOT NULL,
                chain BLOB NOT NULL,
                PRIMARY KEY (group_row, epoch, member_key)
            ) WITHOUT ROWID;
            """)
    }
}
