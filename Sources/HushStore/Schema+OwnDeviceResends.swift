import HushDatabase

extension Schema {
    /// Version 40: what a device seals to another device of its own account
    /// (a sent transcript, a group's state or chain, contact records, the
    /// credential, the recovery key) by the envelope's SHA-256, until the
    /// relay would have expired it, and the sessions each was sealed again
    /// on. A device that cannot open such an envelope (restored from a
    /// backup, which keeps no session) asks as a contact would
    /// (docs/PROTOCOL.md §20.11, §10.1), and the content goes again on the
    /// current session, once per session: a transcript lost that way was
    /// missing from that device's history for good (a walkthrough's loss).
    /// Our own devices are not contacts, hence tables of their own, keyed by
    /// the device's key at the relay.
    static func addOwnDeviceResends(_ db: Database) throws {
        try db.execute("""
            CREATE TABLE own_device_sent_contents(
                digest BLOB PRIMARY KEY,
                device_key BLOB NOT NULL,
                content BLOB NOT NULL,
                sealed_at INTEGER NOT NULL
            ) WITHOUT ROWID;
            CREATE INDEX own_device_sent_contents_by_time ON own_device_sent_contents(sealed_at);
            CREATE TABLE own_device_resends(
                device_key BLOB NOT NULL,
                content_digest BLOB NOT NULL,
                session BLOB NOT NULL,
                resent_at INTEGER NOT NULL,
                PRIMARY KEY (device_key, content_digest, session)
            ) WITHOUT ROWID;
            """)
    }
}
