import HushDatabase

/// What `hush doctor` reports about the database.
public struct DoctorReport: Sendable, Equatable {
    public enum Check: Sendable, Equatable {
        case ok
        case problems([String])
        /// The check does not exist in this SQLCipher version.
        case notAvailable(String)

        public var isOK: Bool { if case .ok = self { return true } else { return false } }
        public var isProblem: Bool { if case .problems = self { return true } else { return false } }
    }

    public let cipherVersion: String
    public let schemaVersion: Int
    public let latestSchemaVersion: Int
    public let integrity: Check
    public let cipherIntegrity: Check
    public let pageCount: Int
    public let pageSize: Int

    public var healthy: Bool { !integrity.isProblem && !cipherIntegrity.isProblem && schemaVersion == latestSchemaVersion }
}

extension MessageStore {
    /// `PRAGMA integrity_check`, and SQLCipher's `cipher_integrity_check`
    /// (per-page HMAC verification, SQLCipher 4 and later) where it exists.
    public func doctor() throws -> DoctorReport {
        let version = try database.cipherVersion()
        let integrityRows = try database.integrityCheck()
        let integrity: DoctorReport.Check = integrityRows == ["ok"] ? .ok : .problems(integrityRows)
        let cipherIntegrity: DoctorReport.Check
        if (Int(version.split(separator: ".").first ?? "") ?? 0) >= 4 {
            // Returns one row per problem and no row when every page verifies.
            let rows = try database.query("PRAGMA cipher_integrity_check") { try $0.get(0, as: String.self) }
            cipherIntegrity = rows.isEmpty ? .ok : .problems(rows)
        } else {
            cipherIntegrity = .notAvailable("SQLCipher \(version) has no cipher_integrity_check (added in 4.0)")
        }
        let pageCount = try database.queryFirst("PRAGMA page_count") { try $0.get(0, as: Int.self) } ?? 0
        let pageSize = try database.queryFirst("PRAGMA page_size") { try $0.get(0, as: Int.self) } ?? 0
        return DoctorReport(cipherVersion: version, schemaVersion: try database.schemaVersion(),
                            latestSchemaVersion: Schema.latestVersion, integrity: integrity,
                            cipherIntegrity: cipherIntegrity, pageCount: pageCount, pageSize: pageSize)
    }
}
