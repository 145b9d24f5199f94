import Foundation
import HushKit
import Testing

/// A backup restored through HushKit as an app would: into a new directory,
/// closed or open at once, with the same address and history.
@Suite struct HushKitBackupRestoreTests {
    @Test func anArchiveRestoresClosedOrOpenWithTheSameAddress() async throws {
        let folder = try RelayProcess.temporaryDirectory("restore")
        let home = folder.appendingPathComponent("home").path
        let account = try await HushAccount.create(in: home, keys: App.keys, displayName: "alice", relayURL: nil)
        let address = account.address
        account.close()
        let (recoveryKey, _) = try await HushAccount.recoveryKey(in: home, keys: App.keys)
        let archives = folder.appendingPathComponent("archives").path
        try FileManager.default.createDirectory(atPath: archives, withIntermediateDirectories: false)
        let archive = try await HushAccount.createBackup(of: home, keys: App.keys, to: archives).path

        // Closed: what it held, and the account opens as any other.
        let closed = folder.appendingPathComponent("closed").path
        let summary = try await HushAccount.restoreBackup(at: archive, into: closed, recoveryKey: recoveryKey, keys: App.keys)
        #expect(summary.scheduleNotRestored == nil, "no schedule was set")
        let reopened = try await HushAccount.open(in: closed, keys: App.keys)
        #expect(reopened.address == address && reopened.restoredFromBackupAt != nil)
        reopened.close()

        // Open at once, without unlocking the new keystore again.
        let open = folder.appendingPathComponent("open").path
        let (_, restored) = try await HushAccount.restoreBackupAndOpen(at: archive, into: open, recoveryKey: recoveryKey, keys: App.keys)
        #expect(restored.address == address)
        restored.close()

        // Its last record (the end record, after every row was handed to the loading thread) changed:
        // refused as damaged, and nothing is left, neither the home nor the temporary folder.
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: archive)))
        bytes[bytes.count - 3] ^= 0x01
        let tampered = folder.appendingPathComponent("tampered.hushbackup").path
        try Data(bytes).write(to: URL(fileURLWithPath: tampered))
        let refused = await App.error {
            _ = try await HushAccount.restoreBackup(at: tampered, into: folder.appendingPathComponent("never").path, recoveryKey: recoveryKey, keys: App.keys)
        }
        #expect(refused?.kind == .damagedFile, "\(String(describing: refused))")
        let left = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        #expect(!left.contains("never") && !left.contains { $0.hasSuffix(".restoring") }, "\(left)")

        // A second restore into a home that exists now is refused.
        let again = await App.error { _ = try await HushAccount.restoreBackup(at: archive, into: open, recoveryKey: recoveryKey, keys: App.keys) }
        #expect(again?.kind == .accountExists, "\(String(describing: again))")
    }
}
