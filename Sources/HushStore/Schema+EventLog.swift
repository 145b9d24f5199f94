import HushDatabase

extension Schema {
    /// Version 23: the durable event log and its subscribers' cursors.
    ///
    /// Every event a client may need to replay (a message stored, a status
    /// changed, typing, a reaction, a group change, a resend, an envelope set
    /// aside) is one row, inserted in the transaction that made the change it
    /// tells of. `seq` is AUTOINCREMENT so a number is never given twice,
    /// even after the rows before it were pruned; numbers increase with the
    /// commit order but are not contiguous. A row names what changed by id
    /// (and a status, a typing flag or a quarantine reason in `detail`):
    /// never message text or key material.
    ///
    /// `event_subscribers` holds each named client's acknowledged seq: a
    /// row is pruned only once every subscriber acknowledged it and it is
    /// older than the retention, or when the log is over its hard bounds.
    static func addEventLog(_ db: Database) throws {
        try db.execute("""
            CREATE TABLE events(
                seq INTEGER PRIMARY KEY AUTOINCREMENT,
                kind TEXT NOT NULL,
                message_id INTEGER,
                conversation_id INTEGER,
                contact_id INTEGER,
                attachment_id INTEGER,
                detail TEXT,
                created_at INTEGER NOT NULL
            );
            CREATE TABLE event_subscribers(
                name TEXT PRIMARY KEY,
                acknowledged_seq INTEGER NOT NULL,
                updated_at INTEGER NOT NULL
            ) WITHOUT ROWID;
            """)
    }
}
