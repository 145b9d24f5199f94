import HushDatabase

extension Schema {
    /// Version 36: the envelope keys of the states of a group this account
    /// is no longer in (removed, or left), kept until the relay's retention
    /// ends (docs/PROTOCOL.md §18.2). A member who had not yet learned of the
    /// change still seals to us under them; with the key such an envelope is
    /// recognised and dropped unread, instead of waiting at the relay for a
    /// sender's key that never comes. An envelope key opens only the outer
    /// layer: the chains that decrypt messages are forgotten.
    static func addFormerGroupEnvelopeKeys(_ db: Database) throws {
        try db.execute("""
            CREATE TABLE former_group_envelope_keys(
                group_row INTEGER NOT NULL REFERENCES groups(id) ON DELETE CASCADE,
                envelope_key BLOB NOT NULL,
                kept_until INTEGER NOT NULL,
                PRIMARY KEY (group_row, envelope_key)
            ) WITHOUT ROWID;
            """)
    }
}
