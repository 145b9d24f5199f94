import Foundation
@testable import HushKit
import Testing

/// Between the account's own devices, an envelope one of them cannot open
/// is sent again as a contact's would be (docs/PROTOCOL.md §20.11, "A
/// decryption error between own devices"): nothing a device sends is lost
/// on the others when one of them is restored from a backup.
@Suite struct OwnDeviceResendTests {
    /// The walkthrough's loss: the desk (the account's first device) is
    /// restored from a backup, which keeps no session; the laptop, not
    /// having synced since, writes to bob, and its sent transcript goes on
    /// the session the restored desk no longer holds. The desk sets it
    /// aside, starts a new session and asks; the laptop seals it again.
    @Test func aTranscriptTheRestoredFirstDeviceCouldNotOpenIsSentAgain() async throws {
        let relay = try RelayProcess()
        let (home, bob) = try await DeviceLinkTests.accountWithHistory(relay)
        defer { bob.close() }
        let linked = try await DeviceLinkTests.link(home)
        let laptop = try await HushAccount.open(in: linked, keys: App.keys)
        defer { laptop.close() }
        let bobOnLaptop = try #require(try await laptop.conversations().first?.contact)
        // The two devices' session, then a transcript that arrives as it should.
        var desk = try await HushAccount.open(in: home, keys: App.keys)
        for _ in 0..<2 {
            _ = try await desk.sync()
            _ = try await laptop.sync()
        }
        _ = try await laptop.room(with: bobOnLaptop).send("before the restore")
        #expect(try await App.sync(desk) { try await DeviceLinkTests.history(desk).contains { $0.text == "before the restore" } })

        let folder = try RelayProcess.temporaryDirectory("own-device-backup").path
        await desk.closeAndWait()
        let archive = try await HushAccount.createBackup(of: home, keys: App.keys, to: folder).path
        let recoveryKey = try await HushAccount.recoveryKey(in: home, keys: App.keys).key
        try FileManager.default.removeItem(atPath: home)
        let restoredHome = try DeviceLinkTests.newHome()
        (_, desk) = try await HushAccount.restoreBackupAndOpen(at: archive, into: restoredHome, recoveryKey: recoveryKey, keys: App.keys)
        defer { desk.close() }
        _ = try await desk.startMissingSessions()

        // The laptop has not synced: its transcript goes on the session the restored desk lost. The
        // desk sets it aside, starts a new session after the pass and asks on it then.
        _ = try await laptop.room(with: bobOnLaptop).send("while the desk was restored")
        _ = try await desk.sync()
        // Still not synced: the next goes on the lost session too, and the desk, holding its new session
        // with the laptop now, asks at once.
        _ = try await laptop.room(with: bobOnLaptop).send("still on the old session")
        _ = try await desk.sync()
        for _ in 0..<3 {
            _ = try await laptop.sync()
            _ = try await desk.sync()
        }
        let texts = try await DeviceLinkTests.history(desk).map(\.text)
        #expect(texts.filter { $0 == "while the desk was restored" }.count == 1, "\(texts)")
        #expect(texts.filter { $0 == "still on the old session" }.count == 1, "\(texts)")
        // And the next one goes on the new session at once.
        _ = try await laptop.room(with: bobOnLaptop).send("after the restore")
        #expect(try await App.sync(desk) { try await DeviceLinkTests.history(desk).contains { $0.text == "after the restore" } })
    }
}
