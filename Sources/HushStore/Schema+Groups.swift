import HushDatabase

extension Schema {
    /// Version 15: group conversations (docs/PROTOCOL.md §18). A group has a
    /// conversation of its own (no contact), its current membership state
    /// (which holds the envelope secret: the database is encrypted), the
    /// states still kept to open envelopes in flight, the sender chains of
    /// every member (ours included), what still has to be sealed to members
    /// over their pairwise sessions, which members a group message's fan-out
    /// still has to reach, and each member's receipts.
    static func addGroups(_ db: Database) throws {
        try db.execute("""
            CREATE TABLE groups(
                id INTEGER PRIMARY KEY,
                group_id BLOB NOT NULL UNIQUE,
                conversation_id INTEGER NOT NULL UNIQUE REFERENCES conversations(id) ON DELETE CASCADE,
                name TEXT NOT NULL UNIQUE,
                state BLOB NOT NULL,
                epoch INTEGER NOT NULL,
                standing TEXT NOT NULL DEFAULT 'member' CHECK (standing IN ('member', 'left', 'removed')),
                created_at INTEGER NOT NULL
            );
            CREATE TABLE group_states(
                group_row INTEGER NOT NULL REFERENCES groups(id) ON DELETE CASCADE,
                digest BLOB NOT NULL,
                epoch INTEGER NOT NULL,
                state BLOB NOT NULL,
                PRIMARY KEY (group_row, digest)
            ) WITHOUT ROWID;
            CREATE TABLE sender_chains(
                group_row INTEGER NOT NULL REFERENCES groups(id) ON DELETE CASCADE,
                epoch INTEGER NOT NULL,
                signing_key BLOB NOT NULL,
                member_key BLOB NOT NULL,
                state_digest BLOB,
                chain BLOB NOT NULL,
                PRIMARY KEY (group_row, epoch, signing_key)
            ) WITHOUT ROWID;
            CREATE TABLE group_deliveries(
                id INTEGER PRIMARY KEY,
                group_row INTEGER NOT NULL REFERENCES groups(id) ON DELETE CASCADE,
                member_key BLOB NOT NULL,
                content BLOB NOT NULL,
                created_at INTEGER NOT NULL
            );
            CREATE TABLE outbox_recipients(
                request_id TEXT NOT NULL REFERENCES outbox(request_id) ON DELETE CASCADE,
                member_key BLOB NOT NULL,
                deposited INTEGER NOT NULL DEFAULT 0,
                PRIMARY KEY (request_id, member_key)
            ) WITHOUT ROWID;
            CREATE TABLE group_receipts(
                message_id INTEGER NOT NULL REFERENCES messages(id) ON DELETE CASCADE,
                member_key BLOB NOT NULL,
                status TEXT NOT NULL CHECK (status IN ('sent', 'delivered', 'read')),
                PRIMARY KEY (message_id, member_key)
            ) WITHOUT ROWID;
            """)
    }
}
