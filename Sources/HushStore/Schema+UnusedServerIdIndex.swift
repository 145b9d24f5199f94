import HushDatabase

extension Schema {
    /// Version 16: drops `messages_by_server_id`. No query ever searched
    /// messages by their relay id within a conversation (duplicates are found
    /// by `client_message_id`, a message's relay id is set by its own row id),
    /// yet every insert paid one random B-tree insertion for it: at a million
    /// messages that index alone was a quarter of the ingest's CPU time
    /// (`make bench BENCH=store`), most of it pages decrypted and re-encrypted
    /// on cache misses.
    static func dropUnusedServerIdIndex(_ db: Database) throws {
        try db.execute("DROP INDEX IF EXISTS messages_by_server_id")
    }
}
