import Foundation
import HushCrypto
import HushKeystore
@testable import HushKit
import HushProtocol
import HushStore
import Testing

/// Format version 2 of the archive (docs/PROTOCOL.md §19.3): an attachment
/// blob's bytes travel in the clear beside an empty sealed record that
/// authenticates them; every other file is sealed as in version 1, which
/// still restores. A version-2 archive whose records were moved, dropped,
/// repeated, cut or changed, clear bytes included, is refused and leaves nothing.
@Suite struct BackupArchiveVersionTests {
    /// A home with an attachment blob of three chunks and a file that is not a
    /// blob (two chunks), and an archive of it in each version.
    struct Fixture {
        let folder: String
        let home: String
        let recoveryKey: RecoveryKey
        let blob: [UInt8]
        let other: [UInt8]
        let version1: String
        let version2: String

        init() async throws {
            folder = try RelayProcess.temporaryDirectory("backup-version").path
            home = folder + "/home"
            let account = try await HushAccount.create(in: home, keys: App.keys, displayName: "alice", relayURL: nil)
            account.close()
            recoveryKey = try await HushAccount.recoveryKey(in: home, keys: App.keys).key
            let attachments = home + "/" + HushAccount.attachmentDirectoryName
            try FileManager.default.createDirectory(atPath: attachments, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            blob = SystemRandom().bytes(2 * BackupArchive.fileChunkLength + 1_234)
            other = SystemRandom().bytes(BackupArchive.fileChunkLength + 99)
            try Data(blob).write(to: URL(fileURLWithPath: attachments + "/17.blob"))
            try Data(other).write(to: URL(fileURLWithPath: attachments + "/18.part"))

            version1 = try Self.archive(of: home, recoveryKey: recoveryKey, version: 1, into: folder + "/archives-1")
            version2 = try Self.archive(of: home, recoveryKey: recoveryKey, version: 2, into: folder + "/archives-2")
        }

        /// An archive of `home` in format `version`, written as `hush backup create` writes one.
        static func archive(of home: String, recoveryKey: RecoveryKey, version: UInt16, into folder: String) throws -> String {
            let contents = try KeystoreFile(directory: DataDirectory(path: home)).unlock(passphrase: SecureBytes(copying: Array(App.passphrase.utf8)))
            let store = try MessageStore.openExisting(path: DataDirectory(path: home).databasePath, key: contents.databaseKey)
            var creation = BackupCreation(store: store, identity: try IdentityKeyPair(seed: contents.identitySeed),
                                          identityCreatedAt: contents.createdAt, recoveryKey: recoveryKey,
                                          attachments: home + "/" + HushAccount.attachmentDirectoryName)
            creation.version = version
            return try creation.write(into: folder).path
        }

        func bytes(_ path: String) throws -> [UInt8] { try [UInt8](Data(contentsOf: URL(fileURLWithPath: path))) }

        /// A version-2 archive's records as they lie on disk (§19.3: sealed
        /// length, clear length, chunk, clear bytes), after its header.
        func records(_ archive: [UInt8]) -> [[UInt8]] {
            var records: [[UInt8]] = []
            var offset = BackupArchive.headerLength
            while offset < archive.count {
                let length = archive[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
                let clear = archive[offset + 4..<offset + 8].reduce(0) { $0 << 8 | Int($1) }
                records.append(Array(archive[offset..<offset + 8 + length + clear]))
                offset += 8 + length + clear
            }
            return records
        }

        static func clearLength(_ record: [UInt8]) -> Int { record[4..<8].reduce(0) { $0 << 8 | Int($1) } }
    }

    @Test func bothVersionsRestoreAndVersion2CarriesOnlyBlobsInTheClear() async throws {
        let fixture = try await Fixture()
        defer { try? FileManager.default.removeItem(atPath: fixture.folder) }
        let first = try fixture.bytes(fixture.version1), second = try fixture.bytes(fixture.version2)
        #expect(first[8..<10] == [0, 1] && second[8..<10] == [0, 2])
        func holds(_ archive: [UInt8], _ piece: ArraySlice<UInt8>) -> Bool { Data(archive).range(of: Data(piece)) != nil }
        // The blob's bytes lie in version 2 as they are (they are ciphertext already); nothing else does, and nothing in version 1.
        #expect(holds(second, fixture.blob[0..<4_096]) && holds(second, fixture.blob[(fixture.blob.count - 1_234)...]))
        #expect(!holds(second, fixture.other[0..<64]) && !holds(first, fixture.blob[0..<64]) && !holds(first, fixture.other[0..<64]))
        let clearRecords = fixture.records(second).filter { Fixture.clearLength($0) > 0 }
        #expect(clearRecords.map(Fixture.clearLength) == [BackupArchive.fileChunkLength, BackupArchive.fileChunkLength, 1_234])

        for (name, archive) in [("v1", fixture.version1), ("v2", fixture.version2)] {
            let verified = try HushAccount.verifyBackup(at: archive, recoveryKey: fixture.recoveryKey)
            #expect(verified.files == 2 && verified.fileBytes == UInt64(fixture.blob.count + fixture.other.count), "\(name)")
            let restored = fixture.folder + "/restored-" + name
            let summary = try await HushAccount.restoreBackup(at: archive, into: restored, recoveryKey: fixture.recoveryKey, keys: App.keys)
            #expect(summary.files == 2, "\(name)")
            let attachments = restored + "/" + HushAccount.attachmentDirectoryName
            #expect(try fixture.bytes(attachments + "/17.blob") == fixture.blob, "\(name)")
            #expect(try fixture.bytes(attachments + "/18.part") == fixture.other, "\(name)")
            let reopened = try await HushAccount.open(in: restored, keys: App.keys)
            #expect(reopened.restoredFromBackupAt != nil, "\(name)")
            reopened.close()
        }
    }

    /// A device link's archive (§20.6) travels through the relay that stores
    /// the blobs: written with every file sealed, version 2 all the same.
    @Test func anArchiveForALinkSealsTheBlobsToo() async throws {
        let fixture = try await Fixture()
        defer { try? FileManager.default.removeItem(atPath: fixture.folder) }
        let contents = try KeystoreFile(directory: DataDirectory(path: fixture.home)).unlock(passphrase: SecureBytes(copying: Array(App.passphrase.utf8)))
        let summary = try HushAccount.writeBackup(of: DataDirectory(path: fixture.home), databaseKey: contents.databaseKey,
                                                  identity: try IdentityKeyPair(seed: contents.identitySeed), identityCreatedAt: contents.createdAt,
                                                  recoveryKey: fixture.recoveryKey, to: fixture.folder + "/link", blobsInTheClear: false)
        let archive = try fixture.bytes(summary.path)
        #expect(archive[8..<10] == [0, 2])
        #expect(Data(archive).range(of: Data(fixture.blob[0..<64])) == nil)
        #expect(fixture.records(archive).allSatisfy { Fixture.clearLength($0) == 0 })
        let verified = try HushAccount.verifyBackup(at: summary.path, recoveryKey: fixture.recoveryKey)
        #expect(verified.files == 2 && verified.fileBytes == UInt64(fixture.blob.count + fixture.other.count))
    }

    @Test func aVersion2ArchiveWithItsRecordsOrClearBytesChangedIsRefusedAndWritesNothing() async throws {
        let fixture = try await Fixture()
        defer { try? FileManager.default.removeItem(atPath: fixture.folder) }
        let archive = try fixture.bytes(fixture.version2)
        let header = Array(archive[0..<BackupArchive.headerLength])
        let records = fixture.records(archive)
        let clear = records.indices.filter { Fixture.clearLength(records[$0]) > 0 }
        try #require(clear.count == 3 && records.count > clear[2] + 3)
        // Another archive of the same home: the same blob bytes in the clear, but its own salt and stream.
        let foreign = fixture.records(try fixture.bytes(try await HushAccount.createBackup(of: fixture.home, keys: App.keys,
                                                                                             to: fixture.folder + "/foreign").path))
        try #require(foreign.count == records.count && foreign[clear[1]].suffix(64) == records[clear[1]].suffix(64))

        var variants: [(String, [UInt8])] = []
        func variant(_ name: String, _ list: [[UInt8]]) { variants.append((name, header + list.flatMap { $0 })) }
        var swapped = records; swapped.swapAt(clear[0], clear[1]); variant("two clear records swapped", swapped)
        var dropped = records; dropped.remove(at: clear[1]); variant("a clear record dropped", dropped)
        var repeated = records; repeated.insert(records[clear[1]], at: clear[1]); variant("a clear record repeated", repeated)
        var fromElsewhere = records; fromElsewhere[clear[1]] = foreign[clear[1]]; variant("a record of another archive", fromElsewhere)
        var changed = records; changed[clear[1]][changed[clear[1]].count - 7] ^= 0x01; variant("a clear byte changed", changed)
        var grown = records
        grown[clear[2]] += [0]
        grown[clear[2]][4..<8] = ArraySlice(BackupArchive.bigEndian(UInt32(1_235)))
        variant("clear bytes added, their length too", grown)
        variant("cut before the end record", Array(records.dropLast()))
        variants.append(("cut inside clear bytes", header + records[..<clear[1]].flatMap { $0 } + records[clear[1]].dropLast(100)))
        var sealedFile = records; sealedFile.swapAt(clear[2] + 2, clear[2] + 3); variant("a sealed file's records swapped", sealedFile)

        for (index, (name, bytes)) in variants.enumerated() {
            let path = fixture.folder + "/variant-\(index).hushbackup"
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            #expect(bytes != archive, "\(name)")
            #expect(throws: HushError.self, "verify: \(name)") { try HushAccount.verifyBackup(at: path, recoveryKey: fixture.recoveryKey) }
            let target = fixture.folder + "/never-\(index)"
            let refused = await App.error {
                _ = try await HushAccount.restoreBackup(at: path, into: target, recoveryKey: fixture.recoveryKey, keys: App.keys)
            }
            #expect(refused?.kind == .damagedFile, "\(name): \(String(describing: refused))")
            let left = try FileManager.default.contentsOfDirectory(atPath: fixture.folder)
            #expect(!left.contains("never-\(index)") && !left.contains { $0.hasSuffix(".restoring") }, "\(name): \(left)")
        }
        // And the archive itself, with another account's key.
        let wrong = await App.error {
            _ = try await HushAccount.restoreBackup(at: fixture.version2, into: fixture.folder + "/never-key", recoveryKey: RecoveryKey.generate(), keys: App.keys)
        }
        #expect(wrong?.kind == .invalidInput, "\(String(describing: wrong))")
        #expect(!FileManager.default.fileExists(atPath: fixture.folder + "/never-key"))
    }
}
