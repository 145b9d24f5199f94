import HushStore

/// What `HushAccount.checkup()` found in the encrypted database.
public struct DatabaseCheckup: Sendable, Equatable {
    /// The outcome of one check.
    public enum Check: Sendable, Equatable {
        /// Nothing wrong.
        case ok
        /// What the check reported, one line per problem.
        case problems([String])
        /// The check does not exist in the SQLCipher library loaded (why, in words).
        case notAvailable(String)
    }

    /// The SQLCipher version that opened the database.
    public let cipherVersion: String
    /// The database's schema version.
    public let schemaVersion: Int
    /// The schema version this HushKit writes.
    public let latestSchemaVersion: Int
    /// The database's size in pages.
    public let pageCount: Int
    /// The size of one page, in bytes.
    public let pageSize: Int
    /// SQLite's `PRAGMA integrity_check`.
    public let integrity: Check
    /// SQLCipher's `cipher_integrity_check` (every page's HMAC, SQLCipher 4 and later).
    public let cipherIntegrity: Check

    /// True when no check found a problem and the schema is the latest.
    public var isHealthy: Bool {
        integrity.isProblem == false && cipherIntegrity.isProblem == false && schemaVersion == latestSchemaVersion
    }

    init(_ report: DoctorReport) {
        cipherVersion = report.cipherVersion
        schemaVersion = report.schemaVersion
        latestSchemaVersion = report.latestSchemaVersion
        pageCount = report.pageCount
        pageSize = report.pageSize
        integrity = Check(report.integrity)
        cipherIntegrity = Check(report.cipherIntegrity)
    }
}

extension DatabaseCheckup.Check {
    var isProblem: Bool { if case .problems = self { return true } else { return false } }

    init(_ check: DoctorReport.Check) {
        switch check {
        case .ok: self = .ok
        case let .problems(rows): self = .problems(rows)
        case let .notAvailable(reason): self = .notAvailable(reason)
        }
    }
}
