import HushDatabase

extension Schema {
    /// Version 11: attachments, one row per message that carries a file
    /// (docs/PROTOCOL.md §10.3). The row holds the pointer (its key is a
    /// secret like the session state: the database is encrypted) and where
    /// the transfer stands; the encrypted blob itself is a file under the
    /// data directory, named by the row id. Deleting the message (or its
    /// conversation, or its contact) deletes the row; the messenger removes
    /// files whose row is gone.
    static func addAttachments(_ db: Database) throws {
        try db.execute("""
            CREATE TABLE attachments(
                id INTEGER PRIMARY KEY,
                message_id INTEGER NOT NULL UNIQUE REFERENCES messages(id) ON DELETE CASCADE,
                direction TEXT NOT NULL CHECK (direction IN ('in', 'out')),
                state TEXT NOT NULL CHECK (state IN ('uploading', 'uploaded', 'available', 'downloading', 'ready', 'failed')),
                file_name TEXT NOT NULL,
                media_type TEXT NOT NULL,
                size INTEGER NOT NULL,
                file_key BLOB NOT NULL,
                digest BLOB NOT NULL,
                blob_id TEXT,
                transferred INTEGER NOT NULL DEFAULT 0,
                last_error TEXT,
                created_at INTEGER NOT NULL,
                updated_at INTEGER NOT NULL
            );
            CREATE INDEX attachments_by_state ON attachments(state);
            """)
    }

    /// Version 12: the relay's id of an upload in progress, so a sender that
    /// was cut off or killed resumes after the bytes the relay holds.
    static func addAttachmentUploadIds(_ db: Database) throws {
        try db.execute("ALTER TABLE attachments ADD COLUMN upload_id TEXT")
    }

    /// Version 13: a lease on an outgoing upload, with the process holding
    /// it. A process claims the row (in a write transaction, only while no
    /// unexpired lease of a live process holds it) before uploading, so two
    /// flushes, in one process or two (`hush send --file` beside a running
    /// `hush listen`), never upload the same file twice; a process killed
    /// mid-upload leaves the row to the next one at once.
    static func addAttachmentUploadLeases(_ db: Database) throws {
        try db.execute("""
            ALTER TABLE attachments ADD COLUMN upload_lease_until INTEGER;
            ALTER TABLE attachments ADD COLUMN upload_lease_pid INTEGER;
            """)
    }

    /// Version 14: an upload's own backoff. A relay that is down or slow for
    /// uploads used to be tried at every flush, ahead of the text messages
    /// queued behind it; now a failed upload waits its turn
    /// (`upload_next_attempt_at`, growing with `upload_failures`) and text
    /// goes out first.
    static func addAttachmentUploadSchedule(_ db: Database) throws {
        try db.execute("""
            ALTER TABLE attachments ADD COLUMN upload_failures INTEGER NOT NULL DEFAULT 0;
            ALTER TABLE attachments ADD COLUMN upload_next_attempt_at INTEGER;
            """)
    }
}
