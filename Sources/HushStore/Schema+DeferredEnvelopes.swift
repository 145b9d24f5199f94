import HushDatabase

extension Schema {
    /// Version 9: envelopes set aside for a cause on our side (no session,
    /// a missing private prekey). They stay at the relay, unacknowledged, and
    /// every sync tries them again until they open or fail for good.
    static func addDeferredEnvelopes(_ db: Database) throws {
        try db.execute("""
            ALTER TABLE quarantined_envelopes ADD COLUMN deferred INTEGER NOT NULL DEFAULT 0;
            CREATE INDEX quarantined_by_server_id ON quarantined_envelopes(server_id);
            """)
    }
}
