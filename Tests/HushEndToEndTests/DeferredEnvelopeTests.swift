import Foundation
import Testing

/// An envelope that fails for a cause on the receiver's side (here: Bob
/// removed Alice, so he holds no session for her messages) is never
/// acknowledged: it stays at the relay, and once Bob has a session again it
/// is recovered (reported to Alice, who sends it again).
@Suite struct DeferredEnvelopeTests {
    @Test func messagesForASessionThisDeviceLacksStayAtTheRelayAndAreRecovered() throws {
        let bed = try Testbed("deferred")
        let alice = try bed.newUser("alice"), bob = try bed.newUser("bob")
        try bed.acquaint(alice, bob)

        try bed.succeed(bob, ["contact", "remove", "alice"])
        let waiting = ["written after bob removed me", "and once more"]
        for text in waiting { try bed.send(alice, to: "bob", text) }

        for _ in 0..<2 {
            let sync = try bed.hush(bob, ["sync", "--json"])
            #expect(sync.status == 24 && sync.stderr.contains("stay at the relay"), "\(sync)")
            #expect(try sync.json()["deferred"] as? Int == 2)
            #expect(try bed.storedEnvelopes(for: bob) == 2, "not acknowledged")
        }

        // Bob adds Alice again: his sync now reports the two to her, she resends them on the new session.
        try bed.addContact(bob, alice)
        for _ in 0..<3 {
            _ = try bed.hush(bob, ["sync", "--json"])
            try bed.sync(alice)
        }
        try bed.sync(bob)
        let received = try bed.history(bob, with: "alice").incoming.bodies
        #expect(waiting.allSatisfy { text in received.filter { $0 == text }.count == 1 }, "\(received)")
        #expect(try bed.storedEnvelopes(for: bob) == 0)
    }
}
