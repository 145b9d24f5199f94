import Foundation
import HushAudit
import HushKit

/// `audit local`: what an account's own data directory shows about the
/// design's promises (owner-only files, encryption at rest, no plaintext).
struct LocalAudit {
    let home: String
    /// Files in the data directory that others may read.
    let filesReadableByOthers: [String]
    /// False when messages.db starts with SQLite's plaintext header.
    let databaseEncrypted: Bool
    let setAside: [SetAsideEnvelope]
    let integrityHealthy: Bool
    let canaryScan: CanaryScanner.Report?

    /// Whether the audit found something the user must act on.
    var failed: Bool { !filesReadableByOthers.isEmpty || !databaseEncrypted || canaryScan?.foundAnywhere == true }

    /// Runs the checks on `directory`; with `canary`, also scans every file
    /// for that text.
    ///
    /// The files are read before `open` opens the account: a descriptor of
    /// messages.db (or its -wal/-shm) closed in a process that holds a
    /// connection to it drops that connection's locks, and another process
    /// of the same home could then delete the log under it.
    static func run(_ directory: String, canary: String?,
                    open: () async throws -> HushAccount) async throws -> LocalAudit {
        let databasePath = directory + "/" + HushAccount.databaseFileName
        let header = (try? FileHandle(forReadingFrom: URL(fileURLWithPath: databasePath)).readData(ofLength: 16)) ?? Data()
        let databaseEncrypted = !header.starts(with: Data("SQLite format 3".utf8))
        let files = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        let loose = files.filter { file in
            let attributes = try? FileManager.default.attributesOfItem(atPath: directory + "/" + file)
            let mode = (attributes?[.posixPermissions] as? NSNumber)?.intValue ?? 0
            return mode & 0o077 != 0
        }
        let scan = try canary.map { try CanaryScanner.scan(directory: directory, canary: $0) }
        let account = try await open()
        defer { account.close() }
        let setAside = try await account.setAsideEnvelopes()
        let checkup = try await account.checkup()
        return LocalAudit(home: directory, filesReadableByOthers: loose, databaseEncrypted: databaseEncrypted,
                          setAside: setAside, integrityHealthy: checkup.isHealthy, canaryScan: scan)
    }
}
