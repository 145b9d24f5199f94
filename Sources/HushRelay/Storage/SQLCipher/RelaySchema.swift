import HushDatabase

/// The relay database schema, as ordered migrations. Envelopes and prekeys
/// are stored as the opaque bytes clients sent; tokens only as SHA-256 hashes.
enum RelaySchema {
    static var migrator: Migrator {
        var migrator = Migrator()
        migrator.register(version: 1, name: "relay tables") { db in
            try db.execute("""
                CREATE TABLE identities (
                    identity BLOB PRIMARY KEY,
                    registered_at INTEGER NOT NULL,
                    signed_prekey BLOB NOT NULL,
                    last_resort_kem_prekey BLOB NOT NULL
                ) WITHOUT ROWID;
                CREATE TABLE one_time_prekeys (
                    identity BLOB NOT NULL REFERENCES identities(identity) ON DELETE CASCADE,
                    kind INTEGER NOT NULL,
                    prekey_id INTEGER NOT NULL,
                    prekey BLOB NOT NULL,
                    PRIMARY KEY (identity, kind, prekey_id)
                ) WITHOUT ROWID;
                CREATE TABLE messages (
                    id INTEGER PRIMARY KEY,
                    mailbox BLOB NOT NULL,
                    created_at INTEGER NOT NULL,
                    expires_at INTEGER NOT NULL,
                    size INTEGER NOT NULL,
                    envelope BLOB NOT NULL
                );
                CREATE INDEX messages_by_mailbox ON messages(mailbox, id);
                CREATE INDEX messages_by_expiry ON messages(expires_at);
                CREATE TABLE mailbox_usage (
                    mailbox BLOB PRIMARY KEY,
                    count INTEGER NOT NULL,
                    bytes INTEGER NOT NULL
                ) WITHOUT ROWID;
                CREATE TABLE deposits (
                    mailbox BLOB NOT NULL,
                    request_id TEXT NOT NULL,
                    envelope_digest BLOB NOT NULL,
                    message_id INTEGER NOT NULL,
                    created_at INTEGER NOT NULL,
                    expires_at INTEGER NOT NULL,
                    PRIMARY KEY (mailbox, request_id)
                ) WITHOUT ROWID;
                CREATE INDEX deposits_by_expiry ON deposits(expires_at);
                CREATE TABLE challenges (
                    nonce BLOB PRIMARY KEY,
                    identity BLOB NOT NULL,
                    expires_at INTEGER NOT NULL
                ) WITHOUT ROWID;
                CREATE TABLE tokens (
                    token_hash BLOB PRIMARY KEY,
                    identity BLOB NOT NULL,
                    expires_at INTEGER NOT NULL
                ) WITHOUT ROWID;
                CREATE TABLE credentials (
                    mailbox BLOB NOT NULL,
                    credential_hash BLOB NOT NULL,
                    PRIMARY KEY (mailbox, credential_hash)
                ) WITHOUT ROWID;
                CREATE TABLE blobs (
                    id TEXT PRIMARY KEY,
                    size INTEGER NOT NULL,
                    created_at INTEGER NOT NULL,
                    expires_at INTEGER NOT NULL
                ) WITHOUT ROWID;
                """)
        }
        migrator.register(version: 2, name: "blob uploaders, for per-identity blob quotas") { db in
            try db.execute("""
                ALTER TABLE blobs ADD COLUMN uploader BLOB;
                CREATE INDEX blobs_by_uploader ON blobs(uploader, expires_at);
                """)
        }
        migrator.register(version: 3, name: "device directories") { db in
            // Counters are 1 … 2^63 − 1 (the route refuses others), so INTEGER orders them.
            try db.execute("""
                CREATE TABLE directories (
                    name BLOB PRIMARY KEY,
                    counter INTEGER NOT NULL,
                    record BLOB NOT NULL,
                    written_at INTEGER NOT NULL
                ) WITHOUT ROWID;
                CREATE INDEX directories_by_written_at ON directories(written_at);
                """)
        }
        return migrator
    }
}
