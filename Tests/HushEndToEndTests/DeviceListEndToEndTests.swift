import Foundation
import Testing

/// Issue 33 from the command line: `hush device link` on alice's home and
/// `hush init --link CODE` on a second one, each a separate process through
/// a real relay; bob's client learns alice's devices from the list her
/// first device sends him (docs/PROTOCOL.md §20.11, §20.13), shows them with
/// the fingerprint her `hush device list` shows, and announces the change in
/// the conversation; his messages reach both devices, the linked one's
/// answer reaches him as alice's, and what either device sends shows on the
/// other, in their conversation and in a group; a revocation cuts the
/// linked one off.
@Suite struct DeviceListEndToEndTests {
    /// `hush device list --json` or `hush verify NAME --json`'s "devices", as (fingerprint, active names, revoked names).
    static func devices(_ object: [String: Any]?) throws -> (fingerprint: String, active: Set<String>, revoked: Set<String>) {
        let object = try #require(object)
        let devices = try #require(object["devices"] as? [[String: Any]])
        func names(active: Bool) -> Set<String> { Set(devices.filter { $0["active"] as? Bool == active }.compactMap { $0["name"] as? String }) }
        return (try #require(object["fingerprint"] as? String), names(active: true), names(active: false))
    }

    /// Links a new device named `name` to `existing`'s account (`hush device link` there, `hush init
    /// --link CODE` in a new home), naming the existing device `existingName` when it has no name yet.
    static func link(_ bed: Testbed, from existing: User, as name: String, existingName: String? = nil) throws -> User {
        let (linked, joined, device) = try attemptLink(bed, from: existing, as: name, existingName: existingName)
        #expect(joined.status == 0, "\(joined)")
        #expect(joined.stdout.contains("\"registered\" : true"), "the new device's key is at the relay: \(joined)")
        #expect(linked.status == 0 && linked.stdout.contains("\"linked\""), "\(linked)")
        return device
    }

    /// One link, whatever its outcome: the existing device's result, the new one's, and the new home.
    static func attemptLink(_ bed: Testbed, from existing: User, as name: String, existingName: String? = nil) throws
        -> (existing: CommandResult, new: CommandResult, device: User) {
        // The existing device confirms with "yes" on standard input once the new one answers.
        let arguments = ["device", "link", "--json"] + (existingName.map { ["--name", $0] } ?? [])
        let linking = try ChildProcess(arguments, environment: bed.environment(for: existing), stdin: "yes\n")
        // Its first JSON object is {"code": …}: the line after it is the next object's.
        try #require(linking.wait(timeout: 60) { $0.stdout.contains("}") }, "no code: \(linking.stderr)")
        let first = linking.stdout[...linking.stdout.firstIndex(of: "}")!]
        let code = try #require(try JSONSerialization.jsonObject(with: Data(first.utf8)) as? [String: Any])["code"] as? String
        let device = User(name: existing.name + "-" + name, home: bed.root + "/" + existing.name + "-" + name)
        let joined = try bed.hush(device, ["init", "--link", try #require(code), "--device-name", name, "--json"], timeout: 120)
        return (linking.finish(timeout: 60), joined, device)
    }

    @Test func bobSeesAlicesDevicesAfterALinkAndARevocation() throws {
        let bed = try Testbed("device-list")
        let alice = try bed.newUser("alice"), bob = try bed.newUser("bob")
        try bed.acquaint(alice, bob)
        #expect(try bed.succeed(bob, ["verify", "alice", "--json"]).json()["devices"] == nil, "one device: no list")

        let laptop = try Self.link(bed, from: alice, as: "laptop", existingName: "desk")

        let own = try Self.devices(try bed.succeed(alice, ["device", "list", "--json"]).json())
        #expect(own.active == ["desk", "laptop"] && own.revoked.isEmpty)
        try bed.sync(bob)
        let seen = try Self.devices(try bed.succeed(bob, ["verify", "alice", "--json"]).json()["devices"] as? [String: Any])
        #expect(seen.fingerprint == own.fingerprint && seen.active == own.active, "\(seen)")
        let text = try bed.succeed(bob, ["verify", "alice"]).stdout
        #expect(text.contains("alice's devices (2 active), fingerprint \(own.fingerprint)") && text.contains("laptop"), "\(text)")
        #expect(try bed.history(bob, with: "alice").contains { $0.body == "uses 2 devices: \"desk\", \"laptop\"" })

        // Bob's message reaches both of alice's devices, and the laptop's answer reaches bob as alice's (§20.12).
        try bed.send(bob, to: "alice", "to both of you")
        try bed.sync(alice)
        #expect(try bed.history(alice, with: "bob").contains { $0.body == "to both of you" })
        try bed.sync(laptop)
        #expect(try bed.history(laptop, with: "bob").contains { $0.body == "to both of you" })
        // `hush doctor` says which is which.
        #expect(try bed.succeed(laptop, ["doctor", "--json"]).json()["linkedDevice"] as? Bool == true)
        #expect(try bed.succeed(alice, ["doctor", "--json"]).json()["linkedDevice"] as? Bool == false)
        // Its history came with the link, and says so (not "restored from a backup").
        let shown = try bed.succeed(laptop, ["history", "bob", "--no-receipts"]).stdout
        #expect(shown.contains("copied from the device that linked this one") && !shown.contains("restored from a backup"), "\(shown)")
        try bed.send(laptop, to: "bob", "from the laptop")
        try bed.sync(bob)
        #expect(try bed.history(bob, with: "alice").contains { $0.body == "from the laptop" && $0.direction == "in" })
        // What one device sends shows on the other as sent (transcripts, §20.11), on the session the two
        // devices' passes above started between them.
        try bed.sync(alice)
        #expect(try bed.history(alice, with: "bob").contains { $0.body == "from the laptop" && $0.direction == "out" })
        try bed.send(alice, to: "bob", "from the desk")
        try bed.sync(laptop)
        #expect(try bed.history(laptop, with: "bob").contains { $0.body == "from the desk" && $0.direction == "out" })

        // A group with a two-device member works both ways (§20.17): the desk makes it, its state and
        // chain reach the laptop, bob's chain reaches both; each device's group messages show on the other.
        try bed.succeed(alice, ["group", "create", "team", "bob"])
        for _ in 0..<2 { for user in [bob, alice, laptop] { try bed.sync(user) } }
        try bed.send(bob, to: "team", "to the team")
        for user in [alice, laptop] { try bed.sync(user) }
        #expect(try bed.history(alice, with: "team").contains { $0.body == "to the team" && $0.direction == "in" })
        #expect(try bed.history(laptop, with: "team").contains { $0.body == "to the team" && $0.direction == "in" })
        try bed.send(laptop, to: "team", "the laptop to the team")
        for user in [bob, alice] { try bed.sync(user) }
        #expect(try bed.history(bob, with: "team").contains { $0.body == "the laptop to the team" && $0.direction == "in" })
        #expect(try bed.history(alice, with: "team").contains { $0.body == "the laptop to the team" && $0.direction == "out" })

        // Contacts are the account's (§20.16): carol, added on the desk, is a contact on the laptop, which
        // writes to her at once; bob, verified on the desk, is verified on the laptop.
        let carol = try bed.newUser("carol")
        try bed.addContact(alice, carol)
        try bed.send(alice, to: "carol", "hi carol, from the desk")
        let number = try #require(try bed.succeed(alice, ["verify", "bob", "--json"]).json()["safetyNumber"] as? String)
        try bed.succeed(alice, ["verify", "bob", "--compare", number])
        try bed.sync(laptop)
        let laptopContacts = try #require(try bed.succeed(laptop, ["contact", "list", "--json"]).json()["contacts"] as? [[String: Any]])
        #expect(laptopContacts.contains { $0["name"] as? String == "carol" && $0["address"] as? String == carol.address }, "\(laptopContacts)")
        #expect(laptopContacts.contains { $0["name"] as? String == "bob" && $0["verification"] as? String == "verified" }, "\(laptopContacts)")
        #expect(try bed.history(laptop, with: "carol").contains { $0.body == "hi carol, from the desk" && $0.direction == "out" })
        try bed.send(laptop, to: "carol", "and from the laptop")
        try bed.sync(carol)
        let request = try bed.succeed(carol, ["requests", "--json"]).stdout
        #expect(request.contains(alice.address) && request.contains("and from the laptop"), "\(request)")
        try bed.sync(alice)
        #expect(try bed.history(alice, with: "carol").contains { $0.body == "and from the laptop" && $0.direction == "out" })

        // A stranger who adds alice by address reads her directory and starts sessions with her devices
        // there and then, so the first message, sent by the next process, reaches the laptop too (a
        // message request there as on the desk). Before, only the desk had it.
        let dave = try bed.newUser("dave")
        try bed.succeed(dave, ["contact", "add", "alice", alice.address])
        try bed.send(dave, to: "alice", "dave's first words")
        // The list read at the add is announced where it happened: before the message that followed.
        // (No envelope numbered it; placed as a pending message is, it sorted after everything, for good.)
        let daveSees = try bed.history(dave, with: "alice").map(\.body)
        #expect(daveSees == ["uses 2 devices: \"desk\", \"laptop\"", "dave's first words"], "\(daveSees)")
        for device in [alice, laptop] {
            try bed.sync(device)
            let requests = try bed.succeed(device, ["requests", "--json"]).stdout
            #expect(requests.contains(dave.address) && requests.contains("dave's first words"), "\(device.name): \(requests)")
        }

        let epochBefore = try bed.succeed(bob, ["group", "info", "team", "--json"]).json()["epoch"] as? Int
        let revoked = try bed.hush(alice, ["device", "revoke", "laptop", "--json"])
        #expect(revoked.status == 0, "\(revoked)")
        // It says what was told: bob and carol got the list; "team", which alice administers, a new key.
        let told = try revoked.json()
        #expect(told["contactsTold"] as? Int == 2 && told["groupsRekeyed"] as? Int == 1 && told["adminsAsked"] as? Int == 0
                && (told["groupsNotRekeyed"] as? [String])?.isEmpty == true, "\(told)")
        let after = try Self.devices(try bed.succeed(alice, ["device", "list", "--json"]).json())
        #expect(after.active == ["desk"] && after.revoked == ["laptop"] && after.fingerprint != own.fingerprint)
        try bed.sync(bob)
        let seenAfter = try Self.devices(try bed.succeed(bob, ["verify", "alice", "--json"]).json()["devices"] as? [String: Any])
        #expect(seenAfter.fingerprint == after.fingerprint && seenAfter.revoked == ["laptop"], "\(seenAfter)")
        #expect(try bed.history(bob, with: "alice").contains { $0.body == "revoked a device: \"laptop\"" })
        // The conversation goes on with the desk; the revoked laptop gets nothing more, and what it sends is refused.
        try bed.send(bob, to: "alice", "still here")
        try bed.sync(alice)
        #expect(try bed.history(alice, with: "bob").contains { $0.body == "still here" })
        // Before its next sync the laptop does not know it was revoked: what it sends then is set aside
        // by bob with its reason (exit 24); nobody is asked to send it again.
        try bed.send(laptop, to: "bob", "from a revoked device")
        // Nor a group message under its chain, of the epoch before the rekey (it was accepted as alice's).
        try bed.send(laptop, to: "team", "to the team from a revoked device")
        let refused = try bed.hush(bob, ["sync", "--json"])
        #expect(refused.status == 24, "\(refused)")
        let bobsAudit = try bed.succeed(bob, ["audit", "local"]).stdout
        #expect(bobsAudit.contains("from a device alice revoked") && bobsAudit.contains("a group message from a device its account revoked"),
                "\(bobsAudit)")
        #expect(try !bed.history(bob, with: "alice").contains { $0.body == "from a revoked device" })
        #expect(try !bed.history(bob, with: "team").contains { $0.body == "to the team from a revoked device" })
        // Nor does a transcript cross between the desk and the revoked laptop, either way: the laptop's
        // is set aside with its reason (exit 24), and the desk copies nothing more to it.
        let setAside = try bed.hush(alice, ["sync", "--json"])
        #expect(setAside.status == 24, "\(setAside)")
        let audit = try bed.succeed(alice, ["audit", "local"]).stdout
        #expect(audit.contains("from a device this account revoked"), "\(audit)")
        #expect(try !bed.history(alice, with: "bob").contains { $0.body == "from a revoked device" })
        try bed.send(alice, to: "bob", "after the revocation")
        // Its sync brings the revoking list from the desk (§20.14): it gets nothing more, knows it was
        // revoked, and refuses to write, saying why.
        try bed.sync(laptop)
        #expect(try !bed.history(laptop, with: "bob").contains { $0.body == "still here" || $0.body == "after the revocation" })
        let refusedHere = try bed.hush(laptop, ["send", "bob", "once it knows"])
        #expect(refusedHere.status != 0 && refusedHere.stderr.contains("this device was revoked from its account"), "\(refusedHere.status) \(refusedHere.stderr)")
        let listed = try Self.devices(try bed.succeed(laptop, ["device", "list", "--json"]).json())
        #expect(listed.revoked == ["laptop"], "\(listed)")
        // Nor does it show a link code that could never work (it did, and refused after the confirmation).
        let link = try bed.hush(laptop, ["device", "link", "--json"], timeout: 30)
        #expect(link.status != 0 && !link.stdout.contains("\"code\"") && link.stderr.contains("not active"), "\(link)")
        // The group alice administers got a new secret with the revocation (§20.14): bob's next group
        // message reaches the desk and not the revoked laptop.
        for user in [bob, alice] { try bed.sync(user) }
        let epochAfter = try bed.succeed(bob, ["group", "info", "team", "--json"]).json()["epoch"] as? Int
        #expect(epochBefore != nil && epochAfter == epochBefore.map { $0 + 1 }, "\(String(describing: epochBefore)) → \(String(describing: epochAfter))")
        try bed.send(bob, to: "team", "the team after the revocation")
        try bed.sync(alice)
        #expect(try bed.history(alice, with: "team").contains { $0.body == "the team after the revocation" })
        _ = try bed.hush(laptop, ["sync", "--json"])
        #expect(try !bed.history(laptop, with: "team").contains { $0.body == "the team after the revocation" })
    }

    /// The first device, which keeps the account key at the relay (§20.13), revoked from the linked one
    /// (§20.14): bob's next messages and the group's reach the laptop and not the desk, which knows it
    /// was revoked and writes nothing; what it still sends on the account key is set aside by bob, and a
    /// new contact reaches the laptop. Before, a revocation of the first device was refused ("would not
    /// cut it off yet").
    @Test func theFirstDeviceRevokedFromALinkedOneReadsNothingSentAfter() throws {
        let bed = try Testbed("device-first-revoked")
        let alice = try bed.newUser("alice"), bob = try bed.newUser("bob")
        try bed.acquaint(alice, bob)
        let laptop = try Self.link(bed, from: alice, as: "laptop", existingName: "desk")
        try bed.succeed(bob, ["group", "create", "team", "alice"])
        for _ in 0..<2 { for user in [bob, alice, laptop] { try bed.sync(user) } }
        try bed.send(bob, to: "alice", "before")
        try bed.send(bob, to: "team", "team before")
        for user in [alice, laptop] {
            try bed.sync(user)
            #expect(try bed.history(user, with: "bob").contains { $0.body == "before" }, "\(user.name)")
            #expect(try bed.history(user, with: "team").contains { $0.body == "team before" }, "\(user.name)")
        }

        let revoked = try bed.hush(laptop, ["device", "revoke", "desk", "--json"])
        #expect(revoked.status == 0, "\(revoked)")
        let listedJSON = try bed.succeed(laptop, ["device", "list", "--json"]).json()
        let listed = try Self.devices(listedJSON)
        #expect(listed.active == ["laptop"] && listed.revoked == ["desk"], "\(listed)")
        // The list says when, and that the desk kept the account key.
        let desk = (listedJSON["devices"] as? [[String: Any]])?.first { $0["name"] as? String == "desk" }
        #expect(desk?["revokedAt"] is String && desk?["keptAccountKey"] as? Bool == true, "\(String(describing: desk))")
        #expect(try bed.succeed(laptop, ["device", "list"]).stdout.contains("it kept the account key, retired with it"))
        // Before its next sync the desk does not know: what it sends on the account key then is set
        // aside by bob, who holds the list (his sync takes it first, from the laptop), with its reason.
        // Its group message too: its chain opens nothing the relay stored after the revocation.
        try bed.send(alice, to: "bob", "from the desk, not told yet")
        try bed.send(alice, to: "team", "to the team from the desk, not told yet")
        let refused = try bed.hush(bob, ["sync", "--json"])
        #expect(refused.status == 24, "\(refused)")
        let audit = try bed.succeed(bob, ["audit", "local"]).stdout
        #expect(audit.contains("account key, retired") && audit.contains("a group message from a device its account revoked"), "\(audit)")
        #expect(try !bed.history(bob, with: "alice").contains { $0.body == "from the desk, not told yet" })
        #expect(try !bed.history(bob, with: "team").contains { $0.body == "to the team from the desk, not told yet" })
        let seen = try Self.devices(try bed.succeed(bob, ["verify", "alice", "--json"]).json()["devices"] as? [String: Any])
        #expect(seen.revoked == ["desk"] && seen.active == ["laptop"], "\(seen)")

        // Bob writes on: only the laptop reads it, 1:1 and in the group (bob administers it: the
        // revocation asked him for a new key, which his sync above wrote).
        try bed.send(bob, to: "alice", "after")
        try bed.send(bob, to: "team", "team after")
        // The desk's transcript of what it sent untold is set aside by the laptop too (exit 24).
        let laptopSync = try bed.hush(laptop, ["sync", "--json"])
        #expect(laptopSync.status == 24, "\(laptopSync)")
        #expect(try bed.succeed(laptop, ["audit", "local"]).stdout.contains("this account's key, retired"))
        #expect(try !bed.history(laptop, with: "bob").contains { $0.body == "from the desk, not told yet" })
        #expect(try !bed.history(laptop, with: "team").contains { $0.body == "to the team from the desk, not told yet" })
        #expect(try bed.history(laptop, with: "bob").contains { $0.body == "after" })
        #expect(try bed.history(laptop, with: "team").contains { $0.body == "team after" })
        // Its sync says it was revoked (it said "No new messages" and nothing more), and so does doctor.
        let deskSync = try bed.hush(alice, ["sync"])
        #expect(deskSync.stderr.contains("this device was revoked from its account"), "\(deskSync)")
        let doctor = try bed.hush(alice, ["doctor", "--json"])
        let revokedAt = try doctor.json()["revokedAt"] as? String
        #expect(doctor.status != 0 && revokedAt != nil, "\(doctor)")
        #expect(try !bed.history(alice, with: "bob").contains { $0.body == "after" })
        #expect(try !bed.history(alice, with: "team").contains { $0.body == "team after" })
        // The desk learnt it was revoked and writes nothing more, saying why.
        let refusedHere = try bed.hush(alice, ["send", "bob", "from the revoked desk"])
        #expect(refusedHere.status != 0 && refusedHere.stderr.contains("this device was revoked from its account"), "\(refusedHere)")
        #expect(try Self.devices(try bed.succeed(alice, ["device", "list", "--json"]).json()).revoked == ["desk"])

        // The laptop's answer reaches bob, who answers it again: the conversation goes on without the desk.
        try bed.send(laptop, to: "bob", "from the laptop")
        try bed.sync(bob)
        #expect(try bed.history(bob, with: "alice").contains { $0.body == "from the laptop" && $0.direction == "in" })
        try bed.send(bob, to: "alice", "still here")
        try bed.sync(laptop)
        #expect(try bed.history(laptop, with: "bob").contains { $0.body == "still here" })

        // A stranger who adds alice by address now reaches the laptop, not the account key.
        let dave = try bed.newUser("dave")
        try bed.succeed(dave, ["contact", "add", "alice", alice.address])
        try bed.send(dave, to: "alice", "dave's first words")
        try bed.sync(laptop)
        let requests = try bed.succeed(laptop, ["requests", "--json"]).stdout
        #expect(requests.contains(dave.address) && requests.contains("dave's first words"), "\(requests)")
    }

    /// The recovery key a revocation makes reaches the account's other active devices (§20.14): a
    /// backup the first device makes afterwards opens with the new key and not with the old one,
    /// which the revoked device holds and keeps.
    @Test func theNewRecoveryKeyReachesTheOtherDevicesAndNotTheRevokedOne() throws {
        let bed = try Testbed("device-recovery-key")
        let alice = try bed.newUser("alice"), bob = try bed.newUser("bob")
        try bed.acquaint(alice, bob)
        let laptop = try Self.link(bed, from: alice, as: "laptop", existingName: "desk")
        let phone = try Self.link(bed, from: alice, as: "phone")
        // Two passes each: every pair of devices holds a session (the lower key starts it). The laptop
        // may hear from the phone before the list naming the phone (from the desk, later in its mailbox,
        // or from the directory): its sync opens that envelope on one more pass once it holds the list
        // (it used to exit 24, "could not be opened", about one run in ten, until the next sync).
        for _ in 0..<2 { for device in [alice, laptop, phone] { try bed.sync(device) } }
        let old = try BackupTests.recoveryKey(bed, alice)
        let laptopKey = try BackupTests.recoveryKey(bed, laptop), phoneKey = try BackupTests.recoveryKey(bed, phone)
        #expect(laptopKey == old && phoneKey == old)

        // The laptop (a linked device) revokes the phone: its output names the new key.
        let revoked = try bed.succeed(laptop, ["device", "revoke", "phone", "--json"]).json()
        let new = try #require(revoked["recoveryKey"] as? String)
        let laptopNow = try BackupTests.recoveryKey(bed, laptop)
        #expect(new != old && laptopNow == new)
        // The desk takes it at its next sync, and seals its backups under it.
        try bed.sync(alice)
        #expect(try BackupTests.recoveryKey(bed, alice) == new)
        let archive = try BackupTests.backup(bed, alice)
        let opened = try bed.hush(nil, ["backup", "verify", archive, "--json"], environment: ["HUSH_RECOVERY_KEY": new])
        #expect(opened.status == 0, "\(opened)")
        #expect(try opened.json()["address"] as? String == alice.address)
        let refused = try bed.hush(nil, ["backup", "verify", archive], environment: ["HUSH_RECOVERY_KEY": old])
        #expect(refused.status != 0 && refused.stdout.isEmpty, "\(refused)")
        // The revoked phone learns it was revoked, and never receives the new key.
        _ = try bed.hush(phone, ["sync", "--json"])
        #expect(try Self.devices(try bed.succeed(phone, ["device", "list", "--json"]).json()).revoked == ["phone"])
        #expect(try BackupTests.recoveryKey(bed, phone) == old)
    }

    /// A device that has not synced since a revocation still holds the old recovery key when it links
    /// another: the new device keeps that key as the keystore's (counter 0), not as the newest, so the
    /// revocation's key, handed on by the revoking device, replaces it there and nothing hands the old
    /// one back to the others (before, the new device kept it under the list that admitted it, above
    /// the revocation's, and gave it to every device of the account).
    @Test func aLinkFromADeviceThatLaggedDoesNotUndoTheNewRecoveryKey() throws {
        let bed = try Testbed("device-recovery-key-link")
        let alice = try bed.newUser("alice"), bob = try bed.newUser("bob")
        try bed.acquaint(alice, bob)
        let laptop = try Self.link(bed, from: alice, as: "laptop", existingName: "desk")
        for _ in 0..<2 { for device in [alice, laptop] { try bed.sync(device) } }
        let old = try BackupTests.recoveryKey(bed, alice)
        // The laptop links a phone and revokes it; the desk does not sync meanwhile.
        let phone = try Self.link(bed, from: laptop, as: "phone")
        let revoked = try bed.succeed(laptop, ["device", "revoke", "phone", "--json"]).json()
        let new = try #require(revoked["recoveryKey"] as? String)
        #expect(new != old)
        // The desk's list is behind the relay's: its first link ends (it takes the relay's list), the
        // second admits the tablet with the key the desk holds, the old one.
        let ended = try Self.attemptLink(bed, from: alice, as: "tablet")
        #expect(ended.existing.status != 0 && ended.existing.stderr.contains("newer device list"), "\(ended.existing)")
        let tablet = try Self.link(bed, from: alice, as: "tablet2")
        let tabletKey = try BackupTests.recoveryKey(bed, tablet)
        #expect(tabletKey == old)
        // This test logs in from one address more often than the relay's login allowance refills (30 at
        // once, then one a second): each refused login is waited out in place (Retry-After: 1), so the
        // link registered the tablet and no pass below fails for it.
        for _ in 0..<3 { for device in [alice, laptop, tablet] {
            let result = try bed.hush(device, ["sync", "--json"])
            #expect(result.status == 0 || result.status == 24, "\(result)")
        } }
        for device in [alice, laptop, tablet] {
            let key = try BackupTests.recoveryKey(bed, device)
            #expect(key == new, "\(device.name) holds another key: \(key == old ? "the old one" : "a third")")
        }
        _ = phone
    }

    /// Ctrl-C in `hush device link` while the user is asked (a walkthrough's: the new device then
    /// waited 15 minutes, and after "yes" an entry could be left active): the link stops, the new
    /// device hears so at once, and no list is signed.
    @Test func ctrlCWhileAskedEndsTheLinkOnBothSides() throws {
        let bed = try Testbed("device-link-interrupted")
        let alice = try bed.newUser("alice")
        // On a terminal, whose input stays open and unanswered: the user has not typed yet (a pipe the
        // harness closes would answer "no" at once).
        let linking = try ChildProcess(["device", "link", "--json"], environment: bed.environment(for: alice), terminal: (columns: 200, rows: 50))
        try #require(linking.wait(timeout: 60) { $0.stdout.contains("}") }, "no code: \(linking.stderr)")
        let first = linking.stdout[...linking.stdout.firstIndex(of: "}")!]
        let code = try #require(try JSONSerialization.jsonObject(with: Data(first.utf8)) as? [String: Any])["code"] as? String
        let device = User(name: "alice-laptop", home: bed.root + "/alice-laptop")
        let joining = try ChildProcess(["init", "--link", try #require(code), "--device-name", "laptop", "--json"],
                                       environment: bed.environment(for: device))
        try #require(linking.wait(timeout: 60) { $0.stdout.contains("\"digits\"") }, "not asked: \(linking.stderr)")
        linking.signal(SIGINT)
        let stopped = linking.finish(timeout: 30), told = joining.finish(timeout: 30)
        // (On the terminal both streams are one.)
        #expect(stopped.status == 1 && stopped.stdout.contains("the link was stopped here") && stopped.stdout.contains("nothing was signed"),
                "\(stopped)")
        #expect(told.status == 1 && told.stderr.contains("the other device ended the link"), "\(told)")
        #expect(!FileManager.default.fileExists(atPath: device.home + "/keystore"), "nothing was written there")
        let devices = try bed.succeed(alice, ["device", "list", "--json"]).json()["devices"] as? [Any]
        #expect(devices?.isEmpty == true, "no list was signed")
    }


    /// The new device stopped while the existing one asks its user: the existing one ends by itself,
    /// signing nothing, with its terminal's question unanswered (it waited for Enter: a walkthrough).
    @Test func aNewDeviceStoppedWhileTheOtherAsksEndsThatLinkAtOnce() throws {
        let bed = try Testbed("device-link-new-stopped")
        let alice = try bed.newUser("alice")
        let linking = try ChildProcess(["device", "link"], environment: bed.environment(for: alice), terminal: (columns: 200, rows: 50))
        try #require(linking.wait(timeout: 60) { $0.stdout.contains("hush init --link ") }, "no code: \(linking.stdout)")
        let code = try #require(linking.stdout.components(separatedBy: "hush init --link ").last?.split(whereSeparator: \.isWhitespace).first)
        let device = User(name: "alice-laptop", home: bed.root + "/alice-laptop")
        let joining = try ChildProcess(["init", "--link", String(code), "--device-name", "laptop"], environment: bed.environment(for: device))
        try #require(linking.wait(timeout: 60) { $0.stdout.contains("Same digits?") }, "not asked: \(linking.stdout)")
        joining.signal(SIGINT)
        let gone = joining.finish(timeout: 30), ended = linking.finish(timeout: 30)
        #expect(gone.status == 1 && gone.stderr.contains("the link was stopped here"), "\(gone)")
        #expect(ended.status == 1 && ended.stdout.contains("the new device stopped the link before it was admitted"), "\(ended)")
        let devices = try bed.succeed(alice, ["device", "list", "--json"]).json()["devices"] as? [Any]
        #expect(devices?.isEmpty == true, "no list was signed")
    }

}
