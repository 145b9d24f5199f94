import Foundation
import Glibc
import Testing

/// What `hush sync` promises under real conditions: both sides can write each
/// other without the stranger limit, two syncs of one home never raise false
/// alarms, and nothing processed stays at the relay because an ack was lost.
@Suite struct SyncSafetyTests {
    /// README's flow, then the side that answered the session writes 20 times:
    /// every one is accepted (it holds the other's delivery credential).
    @Test func afterTheFirstExchangeBothSidesHoldEachOthersCredential() throws {
        let bed = try Testbed("credentials")
        let alice = try bed.newUser("alice"), bob = try bed.newUser("bob")
        try bed.meet(alice, bob, first: "Hi Bob")
        try bed.send(bob, to: "alice", "Hi Alice")
        try bed.sync(alice)
        try bed.sync(bob)
        for index in 1...20 {
            let result = try bed.hush(bob, ["send", "alice", "bob's \(index)", "--json"])
            #expect(result.status == 0 && (try? result.json()["status"] as? String) == "sent", "message \(index): \(result)")
        }
        for index in 1...20 {
            let result = try bed.hush(alice, ["send", "bob", "alice's \(index)", "--json"])
            #expect(result.status == 0, "message \(index): \(result)")
        }
        try bed.sync(alice)
        try bed.sync(bob)
        #expect(try bed.history(alice, with: "bob").incoming.count == 21)
        #expect(try bed.history(bob, with: "alice").incoming.count == 21)
    }

    /// Two `hush sync` of one home at once, six rounds of five messages: no
    /// envelope is set aside, each message is stored once.
    @Test func twoSyncsOfOneHomeAtOnceNeverReportTampering() throws {
        let bed = try Testbed("concurrent-sync")
        let alice = try bed.newUser("alice"), bob = try bed.newUser("bob")
        try bed.meet(alice, bob)
        try bed.sync(alice)  // Bob's credential: Alice's deposits are no longer first contacts.
        var sent = ["hello"]
        for round in 1...6 {
            for index in 1...5 {
                let text = "round \(round) message \(index)"
                try bed.send(alice, to: "bob", text)
                sent.append(text)
            }
            let first = try bed.spawn(bob, ["sync", "--json"]), second = try bed.spawn(bob, ["sync", "--json"])
            for result in [first.finish(timeout: 60), second.finish(timeout: 60)] {
                #expect(result.status == 0 && !result.stderr.contains("set aside"), "round \(round): \(result)")
            }
        }
        try bed.sync(bob)
        let received = try bed.history(bob, with: "alice").incoming.bodies
        #expect(received.sorted() == sent.sorted(), "each message exactly once")
        let audit = try bed.hush(bob, ["audit", "local", "--json"]).json()
        #expect((audit["quarantined"] as? [Any])?.isEmpty == true, "\(audit)")
        #expect(try bed.storedEnvelopes(for: bob) == 0)
    }

    /// A sync that stored everything but whose acknowledgement never reached
    /// the relay: the next sync acknowledges it (without storing it twice).
    @Test func envelopesProcessedButNotAcknowledgedAreAcknowledgedByTheNextSync() throws {
        let bed = try Testbed("pending-ack")
        let wire = try RecordingProxy(forwardingTo: bed.relay.port)
        try bed.relay.acceptLogins(for: wire.url)
        let alice = try bed.newUser("alice"), bob = try bed.newUser("bob", relayURL: wire.url)
        try bed.addContact(alice, bob)
        let texts = ["one", "two", "three"]
        for text in texts { try bed.send(alice, to: "bob", text) }

        wire.refuseAcknowledgements = true
        let cut = try bed.hush(bob, ["sync", "--json"])
        #expect(cut.status != 0, "the ack was cut: \(cut)")
        // Three texts, and the delivery credential and display name the first one hands over (PROTOCOL §11, §10.4).
        #expect(try bed.storedEnvelopes(for: bob) == 5, "processed, but the relay was never told")
        try bed.addContact(bob, alice)
        #expect(try bed.history(bob, with: "alice").incoming.bodies == texts, "stored before the ack")

        wire.refuseAcknowledgements = false
        let report = try bed.sync(bob)
        #expect(report["received"] as? Int == 0, "not stored twice: \(report)")
        #expect(try bed.storedEnvelopes(for: bob) == 0, "the next sync acknowledged them")
        #expect(try bed.history(bob, with: "alice").incoming.bodies == texts)
    }
}
