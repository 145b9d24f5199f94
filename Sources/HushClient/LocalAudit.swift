import Foundation
import HushAudit
import HushStore

/// `audit local`: what an account's own data directory shows about the
/// design's promises (owner-only files, encryption at rest, no plaintext).
public struct LocalAudit {
    public let home: String
    /// Files in the data directory that others may read.
    public let filesReadableByOthers: [String]
    /// False when messages.db starts with SQLite's plaintext header.
    public let databaseEncrypted: Bool
    public let quarantined: [QuarantineRepository.Entry]
    public let integrityHealthy: Bool
    public let canaryScan: CanaryScanner.Report?

    /// Whether the audit found something the user must act on.
    public var failed: Bool { !filesReadableByOthers.isEmpty || !databaseEncrypted || canaryScan?.foundAnywhere == true }

    /// Runs the checks; with `canary`, also scans every file for that text.
    ///
    /// The files are read before `open` opens the account: a descriptor of
    /// messages.db (or its -wal/-shm) closed in a process that holds a
    /// connection to it drops that connection's locks, and another process
    /// of the same home could then delete the log under it.
    public static func run(_ home: AccountHome, canary: String?,
                           open: (AccountHome) throws -> MessagingClient) async throws -> LocalAudit {
        let directory = home.directory
        let header = (try? FileHandle(forReadingFrom: URL(fileURLWithPath: directory.databasePath)).readData(ofLength: 16)) ?? Data()
        let databaseEncrypted = !header.starts(with: Data("SQLite format 3".utf8))
        let files = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        let loose = files.filter { file in
            let attributes = try? FileManager.default.attributesOfItem(atPath: directory.path + "/" + file)
            let mode = (attributes?[.posixPermissions] as? NSNumber)?.intValue ?? 0
            return mode & 0o077 != 0
        }
        let scan = try canary.map { try CanaryScanner.scan(directory: directory.path, canary: $0) }
        let client = try open(home)
        let quarantined = try await client.messenger.quarantined()
        let doctor = try await client.messenger.doctor()
        return LocalAudit(home: directory.path, filesReadableByOthers: loose, databaseEncrypted: databaseEncrypted,
                          quarantined: quarantined, integrityHealthy: doctor.healthy, canaryScan: scan)
    }
}
