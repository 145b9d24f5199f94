import PostgresNIO

/// The relay's tables on PostgreSQL, as ordered migrations. Applied under a
/// transaction-scoped advisory lock, so several instances starting at once
/// migrate once. Same data as the SQLCipher schema, with two differences
/// that let several instances share it:
/// - `mailboxes` holds each mailbox's usage and its last message id, and is
///   the row a deposit locks (FOR UPDATE): deposits to one mailbox are
///   serialised across instances, and ids become visible in commit order;
/// - message ids are unique per mailbox (primary key (mailbox, id)).
enum PostgresSchema {
    /// `pg_advisory_xact_lock` key for migrations ("hush" in ASCII).
    static let migrationLock: Int64 = 0x6875_7368

    static let migrations: [(version: Int, name: String, sql: [String])] = [
        (1, "relay tables", [
            """
            CREATE TABLE identities (
                identity bytea PRIMARY KEY,
                registered_at bigint NOT NULL,
                signed_prekey bytea NOT NULL,
                last_resort_kem_prekey bytea NOT NULL
            )
            """,
            """
            CREATE TABLE one_time_prekeys (
                identity bytea NOT NULL REFERENCES identities(identity) ON DELETE CASCADE,
                kind integer NOT NULL,
                prekey_id bigint NOT NULL,
                prekey bytea NOT NULL,
                PRIMARY KEY (identity, kind, prekey_id)
            )
            """,
            """
            CREATE TABLE mailboxes (
                mailbox bytea PRIMARY KEY REFERENCES identities(identity) ON DELETE CASCADE,
                count bigint NOT NULL DEFAULT 0,
                bytes bigint NOT NULL DEFAULT 0,
                last_id bigint NOT NULL DEFAULT 0
            )
            """,
            """
            CREATE TABLE messages (
                mailbox bytea NOT NULL,
                id bigint NOT NULL,
                created_at bigint NOT NULL,
                expires_at bigint NOT NULL,
                size integer NOT NULL,
                envelope bytea NOT NULL,
                PRIMARY KEY (mailbox, id)
            )
            """,
            "CREATE INDEX messages_by_expiry ON messages (expires_at)",
            """
            CREATE TABLE deposits (
                mailbox bytea NOT NULL,
                request_id text NOT NULL,
                envelope_digest bytea NOT NULL,
                message_id bigint NOT NULL,
                created_at bigint NOT NULL,
                expires_at bigint NOT NULL,
                PRIMARY KEY (mailbox, request_id)
            )
            """,
            "CREATE INDEX deposits_by_expiry ON deposits (expires_at)",
            "CREATE TABLE challenges (nonce bytea PRIMARY KEY, identity bytea NOT NULL, expires_at bigint NOT NULL)",
            "CREATE INDEX challenges_by_expiry ON challenges (expires_at)",
            "CREATE TABLE tokens (token_hash bytea PRIMARY KEY, identity bytea NOT NULL, expires_at bigint NOT NULL)",
            "CREATE INDEX tokens_by_expiry ON tokens (expires_at)",
            """
            CREATE TABLE credentials (
                mailbox bytea NOT NULL,
                credential_hash bytea NOT NULL,
                PRIMARY KEY (mailbox, credential_hash)
            )
            """,
            """
            CREATE TABLE blobs (
                id text PRIMARY KEY,
                size bigint NOT NULL,
                created_at bigint NOT NULL,
                expires_at bigint NOT NULL,
                uploader bytea
            )
            """,
            "CREATE INDEX blobs_by_uploader ON blobs (uploader, expires_at)",
            "CREATE INDEX blobs_by_expiry ON blobs (expires_at)",
        ]),
        (version: 2, name: "device directories", sql: [
            // Counters are 1 … 2^63 − 1 (the route refuses others), so bigint orders them.
            "CREATE TABLE directories (name bytea PRIMARY KEY, counter bigint NOT NULL, record bytea NOT NULL, written_at bigint NOT NULL)",
            "CREATE INDEX directories_by_written_at ON directories (written_at)",
        ]),
    ]

    /// Brings the database to the newest version; refuses one newer than this build.
    static func migrate(_ connection: PostgresConnection, logger: Logger) async throws {
        try await connection.withTransaction(logger: logger) { connection in
            try await connection.query("SELECT pg_advisory_xact_lock(\(migrationLock))", logger: logger)
            try await connection.query("""
                CREATE TABLE IF NOT EXISTS hush_relay_schema (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())
                """, logger: logger)
            var current = 0
            for try await version in try await connection.query("SELECT coalesce(max(version), 0) FROM hush_relay_schema", logger: logger)
                .decode(Int.self) { current = version }
            let newest = migrations.last?.version ?? 0
            guard current <= newest else { throw PostgresStorageError.newerSchema(found: current, supported: newest) }
            for migration in migrations where migration.version > current {
                for statement in migration.sql { try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger) }
                try await connection.query("INSERT INTO hush_relay_schema (version, name) VALUES (\(migration.version), \(migration.name))",
                                           logger: logger)
            }
        }
    }
}
