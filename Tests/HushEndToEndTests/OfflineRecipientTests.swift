import Foundation
import Glibc
import Testing

/// Store and forward: the relay keeps what arrives while the recipient is away.
@Suite struct OfflineRecipientTests {
    @Test func messagesSentWhileTheRecipientIsOfflineArriveOnTheirNextSync() throws {
        let bed = try Testbed("offline")
        let alice = try bed.newUser("alice")
        let bob = try bed.newUser("bob")
        try bed.addContact(alice, bob)

        // Bob was online (listening), then quits: no process of his runs from here on.
        let listening = try bed.spawn(bob, ["listen", "--json"])
        #expect(listening.wait(timeout: 20) { $0.stdout.contains("\"online\":true") }, "listen never connected: \(listening.stderr)")
        listening.signal(SIGTERM)
        let ended = listening.finish(timeout: 10)
        #expect(ended.status == 0 && !ended.crashed, "listen stops cleanly on SIGTERM: \(ended)")

        let texts = ["first while you were away", "second while you were away", "third while you were away"]
        for text in texts {
            #expect(try bed.send(alice, to: "bob", text)["status"] as? String == "sent")
        }
        // And before them the delivery credential (PROTOCOL §11) and the display name (§10.4)
        // Alice's first message hands over.
        #expect(try bed.storedEnvelopes(for: bob) == 5, "the relay holds them until Bob comes back")

        // Bob is back: one sync fetches everything, in order, exactly once.
        let report = try bed.sync(bob)
        #expect(report["received"] as? Int == 5)
        #expect(try bed.storedEnvelopes(for: bob) == 0)
        // Alice wrote first, so Bob files her under a provisional name until he names her.
        try bed.addContact(bob, alice)
        let history = try bed.history(bob, with: "alice")
        #expect(history.incoming.bodies == texts)
        #expect(try bed.sync(bob)["received"] as? Int == 0, "a second sync finds nothing new")
        #expect(try bed.history(bob, with: "alice").incoming.bodies == texts)

        try bed.sync(alice)
        #expect(try bed.history(alice, with: "bob").outgoing.map(\.status) == ["delivered", "delivered", "delivered"])
    }
}
