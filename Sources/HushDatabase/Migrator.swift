/// Ordered, versioned schema migrations. The schema version is
/// `PRAGMA user_version`; each migration runs in its own transaction that
/// also sets the new version, so a crash leaves the database at a version
/// boundary, never between.
public struct Migrator: Sendable {
    public struct Migration: Sendable {
        public let version: Int
        public let name: String
        public let apply: @Sendable (Database) throws -> Void
    }

    public private(set) var migrations: [Migration] = []

    public init() {}

    /// Registers the migration to `version`. Versions must increase by one.
    public mutating func register(version: Int, name: String, _ apply: @escaping @Sendable (Database) throws -> Void) {
        precondition(version == (migrations.last?.version ?? 0) + 1, "migrations must be registered in order 1, 2, 3…")
        migrations.append(Migration(version: version, name: name, apply: apply))
    }

    public var latestVersion: Int { migrations.last?.version ?? 0 }

    /// Brings `database` to the latest version, or to `target` when given.
    /// Refuses a database whose version is newer than this code knows.
    public func migrate(_ database: Database, upTo target: Int? = nil) throws {
        let current = try database.schemaVersion()
        guard current <= latestVersion else {
            throw DatabaseError(kind: .newerSchema(found: current, supported: latestVersion), message: "schema version \(current)")
        }
        let goal = target ?? latestVersion
        for migration in migrations where migration.version > current && migration.version <= goal {
            try database.transaction(.exclusive) { db in
                // Another process may have migrated between our first read and
                // this exclusive lock: re-read inside it and skip what is done.
                guard try db.schemaVersion() < migration.version else { return }
                try migration.apply(db)
                try db.execute("PRAGMA user_version = \(migration.version)")
            }
        }
    }
}

extension Database {
    /// `PRAGMA user_version`.
    public func schemaVersion() throws(DatabaseError) -> Int {
        try prepare("PRAGMA user_version").queryFirstValue(as: Int.self) ?? 0
    }
}
