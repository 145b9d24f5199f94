import HushDatabase

/// The envelope keys of groups this account is no longer in (store
/// version 36), kept for a while to recognise what was sealed to it before
/// the others learned it left.
extension GroupRepository {
    public func keepFormerEnvelopeKeys(_ keys: [[UInt8]], groupRow: Int64, until time: Milliseconds) throws {
        for key in keys {
            try database.execute("""
                INSERT OR REPLACE INTO former_group_envelope_keys(group_row, envelope_key, kept_until) VALUES (?, ?, ?)
                """, [groupRow, key, time])
        }
    }

    /// Every key still kept, with its group's row.
    public func formerEnvelopeKeys() throws -> [(groupRow: Int64, key: [UInt8])] {
        try database.query("SELECT group_row, envelope_key FROM former_group_envelope_keys") { row in
            (try row.get(0), try row.get(1))
        }
    }

    /// Forgets the keys whose time ran out (nothing sealed under them is left at the relay).
    public func forgetFormerEnvelopeKeys(keptUntilBefore time: Milliseconds) throws {
        try database.execute("DELETE FROM former_group_envelope_keys WHERE kept_until < ?", [time])
    }
}
