import Foundation
@testable import HushKit
import HushCrypto
import HushProtocol
import HushRelayClient
import Synchronization
import Testing

/// Linking a device (docs/PROTOCOL.md §20.6) between two homes through a
/// real relay on a loopback port: the history arrives whole, both homes hold
/// the same list, and every way a link can fail leaves the new home absent.
@Suite struct DeviceLinkTests {
    /// What passes between the two screens in a test: the code shown on the
    /// existing device, the digits shown on the new one.
    final class Screens: Sendable {
        let code = Mutex<String?>(nil)
        let digits = Mutex<String?>(nil)

        func waitForCode() async throws -> String {
            for _ in 0..<600 {
                if let code = code.withLock({ $0 }) { return code }
                try await Task.sleep(for: .milliseconds(50))
            }
            throw TestFailure("no link code was shown")
        }

        /// The digits the new device shows, once it shows them.
        func shownDigits() async -> String? {
            for _ in 0..<600 {
                if let digits = digits.withLock({ $0 }) { return digits }
                try? await Task.sleep(for: .milliseconds(50))
            }
            return nil
        }
    }

    /// An account with history: a conversation both ways and a file.
    static func accountWithHistory(_ relay: RelayProcess) async throws -> (home: String, bob: HushAccount) {
        let alice = try await App.account("alice", relay: relay), bob = try await App.account("bob", relay: relay)
        let (bobForAlice, _) = try await App.introduce(alice, bob, as: ("alice", "bob"))
        let room = try await alice.room(with: bobForAlice)
        _ = try await room.send("hello bob")
        let file = try RelayProcess.temporaryDirectory("file").appendingPathComponent("notes.bin")
        try Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }).write(to: file)
        _ = try await room.sendFile(at: file.path)
        #expect(try await App.sync(bob) { try await bob.conversations().first?.unreadCount == 2 })
        let bobRoom = try await bob.room(try #require(try await bob.conversations().first).id)
        _ = try await bobRoom.send("hello alice")
        #expect(try await App.sync(alice) { try await alice.conversations().first?.unreadCount == 1 })
        let home = alice.directory
        await alice.closeAndWait()
        return (home, bob)
    }

    /// The blob files the relay holds.
    static func blobFiles(_ relay: RelayProcess) throws -> Set<String> {
        Set(try FileManager.default.contentsOfDirectory(atPath: relay.directory.appendingPathComponent("blobs").path).filter { $0.count == 64 })
    }

    static func newHome() throws -> String {
        try RelayProcess.temporaryDirectory("linked").appendingPathComponent("home").path
    }

    /// Every file under `directory` and its bytes, by relative path.
    static func files(under directory: String) throws -> [String: Data] {
        var out: [String: Data] = [:]
        guard let walker = FileManager.default.enumerator(atPath: directory) else { return out }
        while let relative = walker.nextObject() as? String {
            var isDirectory: ObjCBool = false
            let path = directory + "/" + relative
            if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue {
                out[relative] = try Data(contentsOf: URL(fileURLWithPath: path))
            }
        }
        return out
    }

    /// Every message of every conversation, oldest first.
    static func history(_ account: HushAccount) async throws -> [Message] {
        var all: [Message] = []
        for conversation in try await account.conversations() {
            all += try await account.room(conversation.id).history(limit: 1000).messages
        }
        return all
    }

    @Test func aLinkedHomeHoldsTheSameHistoryFilesAndList() async throws {
        let relay = try RelayProcess()
        let (home, bob) = try await Self.accountWithHistory(relay)
        defer { bob.close() }
        let linked = try Self.newHome()
        let screens = Screens()
        let blobsBefore = try Self.blobFiles(relay)
        // Parts of 64 KiB: the history goes in several, more than the window holds at once.
        async let existing = HushAccount.linkDevice(from: home, keys: App.keys, thisDeviceName: "desk", relayURL: nil,
                                                    timeout: HushAccount.linkTimeout, partBytes: 64 << 10,
                                                    showCode: { code in screens.code.withLock { $0 = code } }) { name, digits in
            let shown = await screens.shownDigits()
            return name == "laptop" && digits == shown
        }
        let code = try await screens.waitForCode()
        let (summary, joined) = try await HushAccount.joinByLink(code: code, into: linked, keys: App.keys, deviceName: "laptop") { digits in
            screens.digits.withLock { $0 = digits }
        }
        let added = try await existing
        #expect(added.name == "laptop" && added.isActive && !added.isThisDevice)
        #expect(summary.files == 1)
        // Every part was deleted at the relay once received: only the attachment's blob is left.
        #expect(try Self.blobFiles(relay) == blobsBefore)
        // The new list is in the account's directory, where anyone who knows the address finds it (§20.9).
        let published = try await RelayClient(baseURL: relay.url).fetchDirectory(of: try HushAddress(parsing: joined.address).identityKey)
        #expect(published?.counter == 2 && published?.entries.count == 2)

        let original = try await HushAccount.open(in: home, keys: App.keys)
        #expect(joined.address == original.address)
        // The linked device uses the account's relay with its own key (§20.8): registered there, its own mailbox.
        #expect(joined.relayURL == relay.url && original.relayURL == relay.url)
        #expect(try await joined.isRegistered())
        let originalHistory = try await Self.history(original), linkedHistory = try await Self.history(joined)
        #expect(originalHistory.count == 3 && originalHistory == linkedHistory)
        #expect(try await original.conversations() == joined.conversations())
        await original.closeAndWait()
        await joined.closeAndWait()
        let originalFiles = try Self.files(under: home + "/" + HushAccount.attachmentDirectoryName)
        let linkedFiles = try Self.files(under: linked + "/" + HushAccount.attachmentDirectoryName)
        #expect(!originalFiles.isEmpty && originalFiles == linkedFiles)

        // Both homes hold the same list of two active devices, each knowing itself.
        let there = try await HushAccount.devices(in: home, keys: App.keys), here = try await HushAccount.devices(in: linked, keys: App.keys)
        #expect(there.count == 2 && there.allSatisfy(\.isActive) && Set(there.map(\.id)) == Set(here.map(\.id)))
        #expect(there.first { $0.isThisDevice }?.name == "desk" && here.first { $0.isThisDevice }?.name == "laptop")
        // The account's recovery key came along, not the link's archive key.
        #expect(try await HushAccount.recoveryKey(in: linked, keys: App.keys).key.displayText
                == (try await HushAccount.recoveryKey(in: home, keys: App.keys).key.displayText))

        // The linked device syncs its own mailbox and registers its own key: neither takes the
        // original's messages nor replaces its prekeys. Bob still seals to the account key (no
        // client seals to every device yet), so the original receives; nothing is lost.
        let bobRoom = try await bob.room(try #require(try await bob.conversations().first).id)
        _ = try await bobRoom.send("while you were linking")
        let device = try await HushAccount.open(in: linked, keys: App.keys)
        try await device.register()
        _ = try await device.sync()
        #expect(try await !Self.history(device).contains { $0.text == "while you were linking" })
        await device.closeAndWait()
        let back = try await HushAccount.open(in: home, keys: App.keys)
        #expect(try await App.sync(back) { try await Self.history(back).contains { $0.text == "while you were linking" } })
        await back.closeAndWait()
    }

    /// Links a device named "laptop" to `home` (the existing one is "desk"); returns the new home.
    static func link(_ home: String) async throws -> String {
        let linked = try newHome()
        let screens = Screens()
        async let existing = HushAccount.linkDevice(from: home, keys: App.keys, thisDeviceName: "desk",
                                                    showCode: { code in screens.code.withLock { $0 = code } }) { _, digits in
            digits == (await screens.shownDigits())
        }
        let code = try await screens.waitForCode()
        let (_, joined) = try await HushAccount.joinByLink(code: code, into: linked, keys: App.keys, deviceName: "laptop") { digits in
            screens.digits.withLock { $0 = digits }
        }
        _ = try await existing
        await joined.closeAndWait()
        return linked
    }

    /// §20.14: the next list, signed by the revoking device, has the device
    /// revoked, at the relay too; the recovery key is new. What cannot be
    /// revoked is refused and changes nothing.
    @Test func aRevokedDeviceIsRevokedInTheNextListAndTheRecoveryKeyIsNew() async throws {
        let relay = try RelayProcess()
        let (home, bob) = try await Self.accountWithHistory(relay)
        defer { bob.close() }
        let linked = try await Self.link(home)
        let keyBefore = try await HushAccount.recoveryKey(in: home, keys: App.keys).key.displayText
        let laptop = try #require(try await HushAccount.devices(in: home, keys: App.keys).first { $0.name == "laptop" })

        // "00": fewer than the 4 hex digits an id takes, said as such (input, not a missing device).
        for (text, kind) in [("nobody", HushError.Kind.notFound), ("desk", .invalidInput), ("00", .invalidInput)] {
            let refused = await App.error { _ = try await HushAccount.revokeDevice(text, in: home, keys: App.keys) }
            #expect(refused?.kind == kind, "\(text): \(String(describing: refused))")
        }
        #expect(try await HushAccount.recoveryKey(in: home, keys: App.keys).key.displayText == keyBefore)

        let revocation = try await HushAccount.revokeDevice(String(laptop.id.prefix(6)), in: home, keys: App.keys)
        let revoked = revocation.device, newKey = revocation.recoveryKey
        #expect(revocation.groupsRekeyed == 0 && revocation.adminsAsked == 0 && revocation.groupsNotRekeyed.isEmpty, "no group to rekey")
        #expect(revoked.id == laptop.id && !revoked.isActive)
        #expect(newKey.displayText != keyBefore)
        #expect(try await HushAccount.recoveryKey(in: home, keys: App.keys).key.displayText == newKey.displayText)
        let devices = try await HushAccount.devices(in: home, keys: App.keys)
        #expect(devices.count == 2 && devices.first { $0.name == "laptop" }?.isActive == false && devices.first { $0.name == "desk" }?.isActive == true)
        let original = try await HushAccount.open(in: home, keys: App.keys)
        let published = try await RelayClient(baseURL: relay.url).fetchDirectory(of: try HushAddress(parsing: original.address).identityKey)
        await original.closeAndWait()
        #expect(published?.counter == 3 && published?.activeDevices.count == 1)

        let again = await App.error { _ = try await HushAccount.revokeDevice("laptop", in: home, keys: App.keys) }
        #expect(again?.kind == .invalidInput && again?.reason.contains("already revoked") == true, "\(String(describing: again))")
        // The revoked device still holds list 2, in which it is active, and the account key: the list it
        // signs to revoke the other device (the first one, which it may revoke, §20.14) has list 3's
        // counter, and the relay, holding list 3, refuses it.
        // It takes the relay's list 3, and then knows it is revoked itself.
        let fromLinked = await App.error { _ = try await HushAccount.revokeDevice("desk", in: linked, keys: App.keys) }
        #expect(fromLinked?.kind == .other && fromLinked?.reason.contains("newer device list") == true, "\(String(describing: fromLinked))")
        let again2 = await App.error { _ = try await HushAccount.revokeDevice("desk", in: linked, keys: App.keys) }
        #expect(again2?.kind == .invalidInput && again2?.reason.contains("this device is revoked") == true, "\(String(describing: again2))")
    }

    /// A device whose list is behind the relay's (another device linked one
    /// since) gets 409 for the list it signs: it takes the relay's list, so
    /// the link run again starts from it instead of signing the same counter.
    @Test func aLinkBehindTheRelaysListTakesItAndSignsNothing() async throws {
        let relay = try RelayProcess()
        let (home, bob) = try await Self.accountWithHistory(relay)
        defer { bob.close() }
        let laptop = try await Self.link(home)
        _ = try await Self.link(home)
        #expect(try await HushAccount.deviceList(in: laptop, keys: App.keys)?.counter == 2)
        let screens = Screens()
        async let existing: HushError? = App.error {
            _ = try await HushAccount.linkDevice(from: laptop, keys: App.keys, thisDeviceName: "laptop",
                                                 showCode: { code in screens.code.withLock { $0 = code } }) { _, digits in
                digits == (await screens.shownDigits())
            }
        }
        let code = try await screens.waitForCode()
        let joining = await App.error {
            _ = try await HushAccount.joinByLink(code: code, into: try Self.newHome(), keys: App.keys, deviceName: "phone") { digits in
                screens.digits.withLock { $0 = digits }
            }
        }
        let refused = await existing
        #expect(refused?.kind == .other && refused?.reason.contains("it is kept here now") == true, "\(String(describing: refused))")
        #expect(joining != nil, "the new device was sent nothing of the account")
        let list = try #require(try await HushAccount.deviceList(in: laptop, keys: App.keys))
        #expect(list.counter == 3 && list.devices.count == 3 && !list.devices.contains { $0.name == "phone" })
    }

    @Test func aDeclinedLinkSignsNothingAndWritesNothing() async throws {
        let relay = try RelayProcess()
        let home = try await App.account("alice", relay: relay)
        let directory = home.directory
        await home.closeAndWait()
        let linked = try Self.newHome()
        let screens = Screens()
        async let existing: HushError.Kind? = App.errorKind {
            try await HushAccount.linkDevice(from: directory, keys: App.keys, thisDeviceName: "desk",
                                             showCode: { code in screens.code.withLock { $0 = code } }) { _, _ in false }
        }
        let code = try await screens.waitForCode()
        let joining = await App.error {
            _ = try await HushAccount.joinByLink(code: code, into: linked, keys: App.keys, deviceName: "laptop") { _ in }
        }
        #expect(await existing == .other)
        #expect(joining?.kind == .other && joining?.reason.contains("declined") == true, "\(String(describing: joining))")
        #expect(!FileManager.default.fileExists(atPath: linked))
        #expect(try await HushAccount.devices(in: directory, keys: App.keys).isEmpty, "nothing was signed")
    }

    /// A new device that vanishes once admitted (named in the published
    /// list, handed the account seed and recovery key) and before the
    /// history's end: the existing device revokes its entry again, with a
    /// new recovery key, instead of leaving an active device nobody has (a
    /// walkthrough found one). The account's first link made this device's
    /// key during the link: the revocation keeps it (a later link works).
    @Test func aLinkInterruptedBeforeTheHistorysEndRevokesItsNewDevice() async throws {
        let relay = try RelayProcess()
        let (home, bob) = try await Self.accountWithHistory(relay)
        defer { bob.close() }
        let keyBefore = try await HushAccount.recoveryKey(in: home, keys: App.keys).key.displayText
        let linked = try Self.newHome()
        let screens = Screens()
        async let existing = App.error {
            _ = try await HushAccount.linkDevice(from: home, keys: App.keys, thisDeviceName: "desk", relayURL: nil, timeout: .seconds(20),
                                                 partBytes: 64 << 10, showCode: { code in screens.code.withLock { $0 = code } }) { _, digits in
                digits == (await screens.shownDigits())
            }
        }
        let code = try await screens.waitForCode()
        // The new device shows its digits and is gone (killed: it says nothing): it takes no part of the history.
        let joining = Task {
            try await HushAccount.joinByLink(code: code, into: linked, keys: App.keys, deviceName: "laptop", relayURL: nil,
                                             timeout: .seconds(20), abandonAfterDigits: true) { digits in
                screens.digits.withLock { $0 = digits }
            }
        }
        _ = await screens.shownDigits()
        _ = await joining.result
        let failure = await existing
        #expect(failure?.reason.contains("'laptop', which the account's device list had named, was revoked again") == true,
                "\(String(describing: failure))")
        #expect(failure?.suggestion?.contains("`hush backup key` shows it") == true, "\(String(describing: failure))")
        let devices = try await HushAccount.devices(in: home, keys: App.keys)
        #expect(devices.first { $0.name == "laptop" }?.isActive == false, "\(devices)")
        #expect(devices.first { $0.name == "desk" }.map { $0.isActive && $0.isThisDevice } == true, "\(devices)")
        #expect(try await HushAccount.recoveryKey(in: home, keys: App.keys).key.displayText != keyBefore, "the laptop was handed the old one")
        #expect(!FileManager.default.fileExists(atPath: linked))

        // This device kept its key: it links the next device.
        let second = try Self.newHome()
        let again = Screens()
        async let relinked = HushAccount.linkDevice(from: home, keys: App.keys, thisDeviceName: "desk",
                                                    showCode: { code in again.code.withLock { $0 = code } }) { _, digits in
            digits == (await again.shownDigits())
        }
        let secondCode = try await again.waitForCode()
        let (_, joined) = try await HushAccount.joinByLink(code: secondCode, into: second, keys: App.keys, deviceName: "tablet") { digits in
            again.digits.withLock { $0 = digits }
        }
        #expect(try await relinked.name == "tablet")
        await joined.closeAndWait()
        let published = try await RelayClient(baseURL: relay.url).fetchDirectory(of: try HushAddress(parsing: joined.address).identityKey)
        #expect(published?.counter == 4 && published?.entries.filter(\.isActive).count == 2, "\(String(describing: published))")

        // The home restored from a backup holds the list but no device key (archives carry none):
        // it says so before showing a code or signing anything (it said "no device list" to a revoke).
        let (recoveryKey, _) = try await HushAccount.recoveryKey(in: home, keys: App.keys)
        let archives = try RelayProcess.temporaryDirectory("archives").path
        let archive = try await HushAccount.createBackup(of: home, keys: App.keys, to: archives).path
        let restored = try Self.newHome()
        _ = try await HushAccount.restoreBackup(at: archive, into: restored, recoveryKey: recoveryKey, keys: App.keys)
        let revoke = await App.error { _ = try await HushAccount.revokeDevice("tablet", in: restored, keys: App.keys) }
        #expect(revoke?.reason.contains("holds no device key of the account's device list") == true, "\(String(describing: revoke))")
        let shown = Mutex(false)
        let link = await App.error {
            _ = try await HushAccount.linkDevice(from: restored, keys: App.keys, thisDeviceName: "desk",
                                                 showCode: { _ in shown.withLock { $0 = true } }) { _, _ in true }
        }
        #expect(link?.reason.contains("holds no device key of the account's device list") == true && !shown.withLock { $0 },
                "\(String(describing: link))")
    }

    /// A link whose process dies after the list naming its new device was
    /// published (a kill, a power loss: nothing runs on the way out) leaves
    /// a record; `devices` marks the entry, and the next link revokes it
    /// first, with a new recovery key, then links as asked.
    @Test func aKilledLinksEntryIsWithdrawnByTheNextLink() async throws {
        let relay = try RelayProcess()
        let (home, bob) = try await Self.accountWithHistory(relay)
        defer { bob.close() }
        let keyBefore = try await HushAccount.recoveryKey(in: home, keys: App.keys).key.displayText
        let screens = Screens()
        async let existing = App.error {
            _ = try await HushAccount.linkDevice(from: home, keys: App.keys, thisDeviceName: "desk", relayURL: nil, timeout: .seconds(20),
                                                 abandonAfterAdmit: true,
                                                 showCode: { code in screens.code.withLock { $0 = code } }) { _, digits in
                digits == (await screens.shownDigits())
            }
        }
        let code = try await screens.waitForCode()
        let joining = Task {
            try await HushAccount.joinByLink(code: code, into: try Self.newHome(), keys: App.keys, deviceName: "laptop") { digits in
                screens.digits.withLock { $0 = digits }
            }
        }
        #expect(await existing?.reason.contains("abandoned") == true)
        joining.cancel()
        _ = await joining.result
        let left = try await HushAccount.devices(in: home, keys: App.keys)
        #expect(left.first { $0.name == "laptop" }.map { $0.isActive && $0.linkInterrupted } == true, "\(left)")
        #expect(left.first { $0.name == "desk" }?.linkInterrupted == false)

        let withdrawn = Mutex<InterruptedLink?>(nil)
        let again = Screens()
        let second = try Self.newHome()
        async let relinked = HushAccount.linkDevice(from: home, keys: App.keys, thisDeviceName: "desk",
                                                    earlierLinkWithdrawn: { earlier in withdrawn.withLock { $0 = earlier } },
                                                    showCode: { code in again.code.withLock { $0 = code } }) { _, digits in
            digits == (await again.shownDigits())
        }
        let secondCode = try await again.waitForCode()
        let earlier = try #require(withdrawn.withLock { $0 }, "told before the code is shown")
        #expect(earlier.device.name == "laptop" && earlier.revokedAgain && !earlier.device.isActive)
        let (_, joined) = try await HushAccount.joinByLink(code: secondCode, into: second, keys: App.keys, deviceName: "tablet") { digits in
            again.digits.withLock { $0 = digits }
        }
        #expect(try await relinked.name == "tablet")
        await joined.closeAndWait()
        let keyAfter = try await HushAccount.recoveryKey(in: home, keys: App.keys).key.displayText
        #expect(keyAfter != keyBefore && keyAfter == earlier.recoveryKey?.displayText, "the laptop was handed the old one")
        let devices = try await HushAccount.devices(in: home, keys: App.keys)
        #expect(Set(devices.filter(\.isActive).map(\.name)) == ["desk", "tablet"] && devices.filter { !$0.isActive }.map(\.name) == ["laptop"],
                "\(devices)")
        #expect(!devices.contains { $0.linkInterrupted }, "nothing is left to withdraw")
        let published = try await RelayClient(baseURL: relay.url).fetchDirectory(of: try HushAddress(parsing: joined.address).identityKey)
        #expect(published?.counter == 4, "list 2 named the laptop, 3 revoked it, 4 named the tablet")
    }

    /// Stopping either side (Ctrl-C in `hush device link` or `hush init
    /// --link` cancels the task) tells the other at once: it does not wait
    /// out the link's 15 minutes, and nothing is signed for a device gone.
    @Test func aStoppedLinkTellsTheOtherDeviceAtOnce() async throws {
        let relay = try RelayProcess()
        let (home, bob) = try await Self.accountWithHistory(relay)
        defer { bob.close() }
        let started = ContinuousClock.now

        // The existing device stopped while its user is asked: the new device hears so.
        let screens = Screens()
        let asked = Mutex(false), interrupted = Mutex(false)
        let existing = Task {
            try await HushAccount.linkDevice(from: home, keys: App.keys, thisDeviceName: "desk",
                                             showCode: { code in screens.code.withLock { $0 = code } }) { _, _ in
                asked.withLock { $0 = true }
                // No answer until the link is stopped; then none (as `hush device link` reads none after Ctrl-C).
                while !interrupted.withLock({ $0 }) { try? await Task.sleep(for: .milliseconds(20)) }
                return false
            }
        }
        let code = try await screens.waitForCode()
        async let joining = App.error {
            _ = try await HushAccount.joinByLink(code: code, into: try Self.newHome(), keys: App.keys, deviceName: "laptop") { digits in
                screens.digits.withLock { $0 = digits }
            }
        }
        while !asked.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(20)) }
        existing.cancel()
        interrupted.withLock { $0 = true }
        let stopped = await App.error { _ = try await existing.value }
        #expect(stopped?.reason.contains("the link was stopped here") == true && stopped?.reason.contains("nothing was signed") == true,
                "\(String(describing: stopped))")
        #expect(await joining?.reason.contains("the other device ended the link") == true)

        // The new device stopped while the digits show: the question on the existing device ends by
        // itself (it waited for the user's answer, up to 15 minutes), and nothing is signed.
        let second = Screens()
        let questionEnded = Mutex(false)
        async let linking = App.error {
            _ = try await HushAccount.linkDevice(from: home, keys: App.keys, thisDeviceName: "desk",
                                                 showCode: { code in second.code.withLock { $0 = code } }) { _, _ in
                // The user does not answer; the question is taken back (cancelled) when the new device stops.
                while !Task.isCancelled { try? await Task.sleep(for: .milliseconds(20)) }
                questionEnded.withLock { $0 = true }
                return true
            }
        }
        let secondCode = try await second.waitForCode()
        let newDevice = Task {
            try await HushAccount.joinByLink(code: secondCode, into: try Self.newHome(), keys: App.keys, deviceName: "tablet") { digits in
                second.digits.withLock { $0 = digits }
            }
        }
        _ = await second.shownDigits()
        newDevice.cancel()
        let gone = await App.error { _ = try await newDevice.value }
        #expect(gone?.reason.contains("the link was stopped here") == true, "\(String(describing: gone))")
        #expect(await linking?.reason.contains("the new device stopped the link before it was admitted") == true)
        #expect(questionEnded.withLock { $0 }, "the question was taken back")
        #expect(try await HushAccount.deviceList(in: home, keys: App.keys) == nil, "no list was signed")
        #expect(ContinuousClock.now - started < .seconds(60), "neither side waited for the other's timeout")
    }

    @Test func aCodeLinksOneDevice() async throws {
        let relay = try RelayProcess()
        let (home, bob) = try await Self.accountWithHistory(relay)
        defer { bob.close() }
        let first = try Self.newHome(), second = try Self.newHome()
        let screens = Screens()
        async let existing = HushAccount.linkDevice(from: home, keys: App.keys, thisDeviceName: "desk",
                                                    showCode: { code in screens.code.withLock { $0 = code } }) { _, digits in
            let shown = await screens.shownDigits()
            return digits == shown
        }
        let code = try await screens.waitForCode()
        async let joined = HushAccount.joinByLink(code: code, into: first, keys: App.keys, deviceName: "laptop") { digits in
            screens.digits.withLock { $0 = digits }
        }
        // A second device with the same code, after the first one's hello: it is answered by no one.
        _ = await screens.shownDigits()
        let racer = await App.error {
            _ = try await HushAccount.joinByLink(code: code, into: second, keys: App.keys, deviceName: "other",
                                                 relayURL: nil, timeout: .seconds(5)) { _ in }
        }
        #expect(racer?.kind == .invalidInput || racer?.kind == .other, "\(String(describing: racer))")
        #expect(!FileManager.default.fileExists(atPath: second))
        _ = try await existing
        try await joined.account.closeAndWait()
        #expect(try await HushAccount.devices(in: home, keys: App.keys).count == 2)

        // The code once more, after the link: nobody answers, and the new device says so
        // as soon as a device showing a code would have answered (before: silence until
        // the 15-minute link timeout). 3 s here for the minute it waits.
        let third = try Self.newHome()
        let start = ContinuousClock.now
        let spent = await App.error {
            _ = try await HushAccount.joinByLink(code: code, into: third, keys: App.keys, deviceName: "late", relayURL: nil,
                                                 timeout: .seconds(120), welcomeTimeout: .seconds(3)) { _ in }
        }
        #expect(spent?.reason.contains("no device answered this link code: it was used already") == true, "\(String(describing: spent))")
        #expect(ContinuousClock.now - start < .seconds(60))
        #expect(!FileManager.default.fileExists(atPath: third))
    }

    @Test func badCodesAndAVanishedRelayLeaveNoHome() async throws {
        let relay = try RelayProcess()
        let linked = try Self.newHome()
        // A typo: the checksum catches it before anything is sent.
        let code = try LinkCode.generate(relay: relay.url).displayText
        var typo = Array(code)
        typo[5] = typo[5] == "A" ? "B" : "A"
        let mistyped = await App.error { _ = try await HushAccount.joinByLink(code: String(typo), into: linked, keys: App.keys, deviceName: "x") { _ in } }
        #expect(mistyped?.kind == .invalidInput, "\(String(describing: mistyped))")
        // A well-formed code no device made: nobody waits for it.
        let unknown = await App.error { _ = try await HushAccount.joinByLink(code: code, into: linked, keys: App.keys, deviceName: "x") { _ in } }
        #expect(unknown?.kind == .notFound, "\(String(describing: unknown))")
        // The relay goes away while the existing device waits.
        let home = try await App.account("alice", relay: relay)
        let directory = home.directory
        await home.closeAndWait()
        let gone = await App.error {
            try await HushAccount.linkDevice(from: directory, keys: App.keys, thisDeviceName: "desk", showCode: { _ in relay.stop() }) { _, _ in true }
        }
        #expect(gone?.kind == .relayUnavailable, "\(String(describing: gone))")
        let late = await App.error { _ = try await HushAccount.joinByLink(code: code, into: linked, keys: App.keys, deviceName: "x") { _ in } }
        #expect(late?.kind == .relayUnavailable, "\(String(describing: late))")
        #expect(!FileManager.default.fileExists(atPath: linked))
        #expect(try await HushAccount.devices(in: directory, keys: App.keys).isEmpty)
    }

    @Test func anAlteredChannelMessageEndsTheLink() throws {
        let code = try LinkCode.generate(relay: "")
        let keys = try code.keys()
        let new = X25519.PrivateKey(), existing = X25519.PrivateKey()
        let channel = try keys.channel(own: new, peer: existing.publicKey, newDevice: new.publicKey, existingDevice: existing.publicKey)
        var sealed = try channel.seal(LinkMessage.declined.encoded, from: .existingToNew, number: 1)
        #expect(try HushAccount.openChannelMessage(sealed, channel, from: .existingToNew, number: 1).map { if case .declined = $0 { true } else { false } } == true)
        sealed[sealed.count / 2] ^= 0x01
        #expect(throws: HushError.self) { try HushAccount.openChannelMessage(sealed, channel, from: .existingToNew, number: 1) }
        // A late hello (someone else with the code) is passed over, not taken for tampering.
        #expect(try HushAccount.openChannelMessage(keys.hello(X25519.PrivateKey().publicKey), channel, from: .existingToNew, number: 1) == nil)
    }

    @Test func anInterruptedDownloadResumesAndABadDigestIsRefused() async throws {
        let relay = try RelayProcess()
        let keys = try LinkCode.generate(relay: relay.url).keys()
        let mailbox = try await LinkMailbox.open(keys, relayURL: relay.url, side: .existingDevice)
        let folder = try RelayProcess.temporaryDirectory("transfer")
        let source = folder.appendingPathComponent("archive").path
        let bytes = Data((0..<3_000_000).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 >> 9) })
        try bytes.write(to: URL(fileURLWithPath: source))
        // A part from the middle of the file, as the second part of a history is.
        let part = Int64(500_000)..<Int64(2_900_000)
        let (blobID, digest) = try await LinkArchiveTransfer.uploadPart(source, range: part, with: mailbox.client)
        #expect(digest == SHA256.hash(Array(bytes[500_000..<2_900_000])))
        let cut = Mutex(0)
        let target = folder.appendingPathComponent("received").path
        #expect(FileManager.default.createFile(atPath: target, contents: Data(repeating: 9, count: 10)))
        let file = try #require(FileHandle(forWritingAtPath: target))
        try await LinkArchiveTransfer.downloadPart(blobID, length: UInt64(part.count), sha256: digest, into: file, at: 10,
                                                   with: mailbox.client) { received in
            // Cut the first transfer off past its first megabyte, once.
            if received > 1_000_000, cut.withLock({ count in defer { count += 1 }; return count == 0 }) { throw LinkTransferInterruption() }
        }
        try file.close()
        #expect(cut.withLock { $0 } > 0, "the transfer was interrupted")
        #expect(try Data(contentsOf: URL(fileURLWithPath: target)) == Data(repeating: 9, count: 10) + bytes[500_000..<2_900_000])
        var wrong = digest
        wrong[0] ^= 1
        let other = try #require(FileHandle(forWritingAtPath: target))
        defer { try? other.close() }
        let refused = await App.error {
            try await LinkArchiveTransfer.downloadPart(blobID, length: UInt64(part.count), sha256: wrong, into: other, at: 0, with: mailbox.client)
        }
        #expect(refused?.kind == .damagedFile, "\(String(describing: refused))")
        // The uploader deletes a part once it was received; it is gone for everyone then.
        #expect(try await mailbox.client.deleteBlob(id: blobID))
        let gone = await App.error {
            try await LinkArchiveTransfer.downloadPart(blobID, length: UInt64(part.count), sha256: digest, into: other, at: 0, with: mailbox.client)
        }
        #expect(gone?.kind == .relayUnavailable, "\(String(describing: gone))")
    }

    /// A relay that lets an identity start two uploads, then one a second,
    /// answers the third part's start with 429 and `Retry-After`: the link
    /// waits it out instead of failing.
    @Test func aLinkWaitsOutTheRelaysUploadRate() async throws {
        let relay = try RelayProcess(environment: ["HUSH_RELAY_RATE_LIMITS_BLOB_UPLOADS_PER_IDENTITY_BURST": "2",
                                                   "HUSH_RELAY_RATE_LIMITS_BLOB_UPLOADS_PER_IDENTITY_PER_SECOND": "1"])
        let (home, bob) = try await Self.accountWithHistory(relay)
        defer { bob.close() }
        let screens = Screens()
        async let existing = HushAccount.linkDevice(from: home, keys: App.keys, thisDeviceName: "desk", relayURL: nil,
                                                    timeout: .seconds(120), partBytes: 64 << 10,
                                                    showCode: { code in screens.code.withLock { $0 = code } }) { _, digits in
            digits == (await screens.shownDigits())
        }
        let code = try await screens.waitForCode()
        let (summary, joined) = try await HushAccount.joinByLink(code: code, into: try Self.newHome(), keys: App.keys, deviceName: "laptop") { digits in
            screens.digits.withLock { $0 = digits }
        }
        _ = try await existing
        #expect(summary.files == 1 && summary.rowsByTable["messages"] == 3)
        await joined.closeAndWait()
    }

    /// A history too large for the channel's numbers is refused before anything is uploaded.
    @Test func aPlanCutsTheHistoryInPartsAndRefusesTooMany() throws {
        let plan = try LinkArchiveTransfer.Plan(length: 10, partBytes: 4)
        #expect(plan.count == 3 && plan.range(0) == 0..<4 && plan.range(2) == 8..<10)
        #expect(try LinkArchiveTransfer.Plan(length: 250 * 4, partBytes: 4).count == 250)
        #expect(throws: HushError.self) { try LinkArchiveTransfer.Plan(length: 250 * 4 + 1, partBytes: 4) }
        #expect(throws: HushError.self) { try LinkArchiveTransfer.Plan(length: 0, partBytes: 4) }
    }
}
