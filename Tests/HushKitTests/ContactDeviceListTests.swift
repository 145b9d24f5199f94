import Foundation
@testable import HushKit
import Testing

/// Contacts learn an account's devices (docs/PROTOCOL.md §20.11, §20.13):
/// after a link and after a revocation the device holding the sessions
/// sends the new list to every contact, whose client checks it against the
/// one it holds, keeps it, announces the change in the conversation and
/// shows its fingerprint, the same digits the account shows for itself.
@Suite struct ContactDeviceListTests {
    /// The device-list notices of `account`'s conversation with `contact`, oldest first.
    static func notices(_ account: HushAccount, _ contact: ContactID) async throws -> [String] {
        let conversation = try #require(try await account.conversations().first { $0.contact == contact })
        return try await account.room(conversation.id).history(limit: 1000).messages.filter { $0.kind == .deviceListChange }.map(\.text)
    }

    @Test func contactsFollowTheAccountsDevicesThroughALinkAndARevocation() async throws {
        let relay = try RelayProcess()
        let (home, bob) = try await DeviceLinkTests.accountWithHistory(relay)
        defer { bob.close() }
        let alice = try #require(try await bob.conversations().first?.contact)
        #expect(try await bob.devices(ofContact: alice) == nil, "an account of one device sends no list")

        _ = try await DeviceLinkTests.link(home)
        let own = try #require(try await HushAccount.deviceList(in: home, keys: App.keys))
        #expect(try await App.sync(bob) { try await bob.devices(ofContact: alice) != nil })
        let held = try #require(try await bob.devices(ofContact: alice))
        #expect(held.counter == 2 && held.fingerprint == own.fingerprint)
        #expect(Set(held.devices.map(\.name)) == ["desk", "laptop"] && held.devices.allSatisfy { $0.isActive && !$0.isThisDevice })
        let first = try await Self.notices(bob, alice)
        #expect(first == ["uses 2 devices: \"desk\", \"laptop\""], "\(first)")

        _ = try await HushAccount.revokeDevice("laptop", in: home, keys: App.keys)
        let revoked = try #require(try await HushAccount.deviceList(in: home, keys: App.keys))
        #expect(revoked.fingerprint != own.fingerprint)
        #expect(try await App.sync(bob) { try await bob.devices(ofContact: alice)?.counter == 3 })
        let after = try #require(try await bob.devices(ofContact: alice))
        #expect(after.fingerprint == revoked.fingerprint && after.devices.first { $0.name == "laptop" }?.isActive == false)
        #expect(try await Self.notices(bob, alice) == ["uses 2 devices: \"desk\", \"laptop\"", "revoked a device: \"laptop\""])

        // Someone who adds alice by her address alone finds her devices in her directory (§20.9) at once.
        let original = try await HushAccount.open(in: home, keys: App.keys)
        let erin = try await App.account("erin", relay: relay)
        defer { erin.close() }
        let aliceForErin = try await erin.addContact(name: "alice", address: original.address).id
        #expect(try await erin.devices(ofContact: aliceForErin)?.fingerprint == revoked.fingerprint)
        #expect(try await Self.notices(erin, aliceForErin) == ["uses 1 device: \"desk\""])

        // Someone alice writes to first, who never looked her up, gets the list before her first message.
        let dave = try await App.account("dave", relay: relay)
        defer { dave.close() }
        let daveForAlice = try await original.addContact(name: "dave", address: dave.address).id
        _ = try await original.room(with: daveForAlice).send("hello dave")
        await original.closeAndWait()
        #expect(try await App.sync(dave) { try await dave.messageRequests().count == 1 })
        let request = try #require(try await dave.messageRequests().first).contact.id
        #expect(try await dave.devices(ofContact: request)?.fingerprint == revoked.fingerprint)
    }
}

extension ContactDeviceListTests {
    /// A linked device writes to a contact on a session of its own (§20.10):
    /// its first messages carry the account's certificate, so the contact
    /// files them under the account; once the list revoking the device has
    /// reached the contact, what it sends is refused.
    @Test func aLinkedDeviceWritesUnderTheAccountUntilItIsRevoked() async throws {
        let relay = try RelayProcess()
        let (home, bob) = try await DeviceLinkTests.accountWithHistory(relay)
        defer { bob.close() }
        let alice = try #require(try await bob.conversations().first?.contact)
        let linked = try await DeviceLinkTests.link(home)

        let laptop = try await HushAccount.open(in: linked, keys: App.keys)
        let bobForLaptop = try #require(try await laptop.conversations().first?.contact)
        _ = try await laptop.room(with: bobForLaptop).send("from the laptop")
        await laptop.closeAndWait()
        #expect(try await App.sync(bob) { try await DeviceLinkTests.history(bob).contains { $0.text == "from the laptop" } })
        let received = try #require(try await DeviceLinkTests.history(bob).first { $0.text == "from the laptop" })
        #expect(received.conversation == (try await bob.conversations().first { $0.contact == alice })?.id, "filed under alice")
        #expect(try await bob.messageRequests().isEmpty, "not a stranger")

        _ = try await HushAccount.revokeDevice("laptop", in: home, keys: App.keys)
        #expect(try await App.sync(bob) { try await bob.devices(ofContact: alice)?.counter == 3 })
        let revoked = try await HushAccount.open(in: linked, keys: App.keys)
        _ = try await revoked.room(with: bobForLaptop).send("after the revocation")
        await revoked.closeAndWait()
        _ = try await bob.sync()
        #expect(try await !DeviceLinkTests.history(bob).contains { $0.text == "after the revocation" })
        #expect(try await bob.setAsideEnvelopes().contains { $0.reason.contains("revoked") }, "set aside with its reason")
    }
}

extension ContactDeviceListTests {
    /// Issue 33's first done-when, through a real relay: bob's messages reach
    /// both of alice's devices (§20.12: the account-key session for the
    /// first, a session of its own for the linked one); the linked device
    /// answers on that session and bob files it under alice; once alice
    /// revokes it, bob's next messages go to the first device alone.
    @Test func bobsMessagesReachBothOfAlicesDevicesUntilOneIsRevoked() async throws {
        let relay = try RelayProcess()
        let (home, bob) = try await DeviceLinkTests.accountWithHistory(relay)
        defer { bob.close() }
        let alice = try #require(try await bob.conversations().first?.contact)
        let linked = try await DeviceLinkTests.link(home)
        #expect(try await App.sync(bob) { try await bob.devices(ofContact: alice)?.counter == 2 })

        let sent = try await bob.room(with: alice).send("to both of your devices")
        let file = try RelayProcess.temporaryDirectory("file").appendingPathComponent("for-both.bin")
        try Data((0..<70_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }).write(to: file)
        _ = try await bob.room(with: alice).sendFile(at: file.path)
        let desk = try await HushAccount.open(in: home, keys: App.keys)
        #expect(try await App.sync(desk) { try await DeviceLinkTests.history(desk).contains { $0.text == "to both of your devices" } })
        await desk.closeAndWait()
        let laptop = try await HushAccount.open(in: linked, keys: App.keys)
        #expect(try await App.sync(laptop) { try await DeviceLinkTests.history(laptop).contains { $0.text == "to both of your devices" } })
        // A file's pointer goes to every device too.
        #expect(try await App.sync(laptop) { try await DeviceLinkTests.history(laptop).contains { $0.kind == .file && $0.direction == .incoming } })
        let bobForLaptop = try #require(try await laptop.conversations().first?.contact)
        _ = try await laptop.room(with: bobForLaptop).send("the laptop answers")
        await laptop.closeAndWait()
        #expect(try await App.sync(bob) { try await DeviceLinkTests.history(bob).contains { $0.text == "the laptop answers" } })
        #expect(try await bob.messageRequests().isEmpty, "the laptop is alice's, not a stranger")
        // Either device's receipt counts for the message (§20.12).
        #expect(try await DeviceLinkTests.history(bob).first { $0.id == sent.id }.map { $0.status == .delivered || $0.status == .read } == true)

        _ = try await HushAccount.revokeDevice("laptop", in: home, keys: App.keys)
        #expect(try await App.sync(bob) { try await bob.devices(ofContact: alice)?.counter == 3 })
        _ = try await bob.room(with: alice).send("after the revocation")
        let revoked = try await HushAccount.open(in: linked, keys: App.keys)
        _ = try await revoked.sync()
        #expect(try await !DeviceLinkTests.history(revoked).contains { $0.text == "after the revocation" })
        await revoked.closeAndWait()
        let back = try await HushAccount.open(in: home, keys: App.keys)
        #expect(try await App.sync(back) { try await DeviceLinkTests.history(back).contains { $0.text == "after the revocation" } })
        await back.closeAndWait()
    }
}

extension ContactDeviceListTests {
    /// A backup never holds a device's key (§20.1): a linked device's home
    /// restored from one has its history but no key of its own at the
    /// relay, and must not use the account key there (it would take the
    /// first device's messages): it refuses the relay with a reason.
    @Test func aLinkedDevicesRestoredBackupDoesNotTakeTheAccountKeysMailbox() async throws {
        let relay = try RelayProcess()
        let (home, bob) = try await DeviceLinkTests.accountWithHistory(relay)
        defer { bob.close() }
        let linked = try await DeviceLinkTests.link(home)
        let folder = try RelayProcess.temporaryDirectory("linked-backup").path
        let archive = try await HushAccount.createBackup(of: linked, keys: App.keys, to: folder).path
        let recoveryKey = try await HushAccount.recoveryKey(in: linked, keys: App.keys).key
        let restoredHome = try DeviceLinkTests.newHome()
        let (_, restored) = try await HushAccount.restoreBackupAndOpen(at: archive, into: restoredHome, recoveryKey: recoveryKey, keys: App.keys)
        defer { restored.close() }
        #expect(try await DeviceLinkTests.history(restored).contains { $0.text == "hello bob" }, "the history is there")
        let refused = await App.error { _ = try await restored.sync() }
        #expect(refused?.kind == .notRegistered && refused?.reason.contains("device key is not here") == true, "\(String(describing: refused))")
        let registering = await App.error { try await restored.register() }
        #expect(registering?.reason.contains("device key is not here") == true, "no registration with the account key: \(String(describing: registering))")
        // Writing to a contact says the same, before anything is sealed (it said "no session with
        // this contact: remove and add the contact again"), and the account says what it is.
        #expect(restored.lacksDeviceKey && !restored.isLinkedDevice)
        let room = try await restored.room(with: try #require(try await restored.conversations().first?.contact))
        let writing = await App.error { _ = try await room.send("from a restored device") }
        #expect(writing?.kind == .notRegistered && writing?.reason.contains("device key is not here") == true, "\(String(describing: writing))")
    }
}
