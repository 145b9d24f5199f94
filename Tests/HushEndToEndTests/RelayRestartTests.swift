import Foundation
import Glibc
import Testing

/// The relay dies (SIGKILL) mid-exchange and comes back on the same port and
/// data directory: nothing is lost and nothing is delivered twice.
@Suite struct RelayRestartTests {
    @Test func sendsDuringARelayOutageStayPendingAndAreDeliveredOnceAfterRestart() throws {
        let bed = try Testbed("restart")
        let alice = try bed.newUser("alice")
        let bob = try bed.newUser("bob")
        try bed.addContact(alice, bob)
        try bed.send(alice, to: "bob", "hello before anything breaks")
        try bed.sync(bob)
        try bed.addContact(bob, alice)
        try bed.sync(alice)

        // Accepted by the relay but not yet fetched when the relay dies.
        #expect(try bed.send(alice, to: "bob", "stored when the relay died")["status"] as? String == "sent")
        let port = bed.relay.port
        bed.relay.kill()

        // Sends during the outage are sealed and queued, and say so.
        let outage = ["sent during the outage, one", "sent during the outage, two"]
        for text in outage {
            let result = try bed.hush(alice, ["send", "bob", text, "--json"])
            #expect(result.status == 25, "queued, not accepted by the relay: \(result)")
            #expect(try result.json()["status"] as? String == "pending")
            #expect(result.stderr.contains("stays in the outbox"), "\(result)")
        }
        let pending = try bed.outbox(alice)
        #expect(pending.count == 2)
        #expect(pending.allSatisfy { $0["status"] as? String == "pending" && $0["lastError"] is String })
        #expect(try bed.history(alice, with: "bob").suffix(2).map(\.status) == ["pending", "pending"])
        // The text form says which message each request carries and to whom.
        let listed = try bed.succeed(alice, ["outbox"]).stdout
        let messageID = try #require(pending.first?["messageId"] as? Int)
        #expect(listed.contains("[\(messageID)] to bob  pending"), "\(listed)")
        // A sync cannot reach the relay: exit 22, with a message.
        let offline = try bed.hush(bob, ["sync"])
        #expect(offline.status == 22, "\(offline)")
        #expect(offline.stderr.contains("relay"))

        // Retrying one while the relay is still down seals it again under a new request id
        // (a new envelope needs a new id): the answer names it, and `hush outbox` lists it.
        let first = try #require(pending.first?["requestId"] as? String)
        let resealed = try bed.hush(alice, ["retry", String(first.prefix(8)), "--json"])
        let moved = try #require((try resealed.json()["resealed"] as? [[String: Any]])?.first, "\(resealed)")
        #expect(moved["from"] as? String == first && moved["to"] as? String != first, "\(resealed)")
        #expect(try bed.outbox(alice).contains { $0["requestId"] as? String == moved["to"] as? String }, "\(resealed)")
        let said = try bed.hush(alice, ["retry", String((moved["to"] as? String ?? "").prefix(8))])
        #expect(said.stdout.contains("was sealed again and waits as"), "\(said)")

        // Same port, same data directory.
        try bed.relay.start()
        #expect(bed.relay.port == port)

        // `hush retry` posts every pending message now, whatever its backoff said.
        let retry = try bed.hush(alice, ["retry"])
        #expect(retry.status == 0, "\(retry)")
        #expect(retry.stdout.contains("Sent 2,"), "\(retry)")
        #expect(try bed.outbox(alice).isEmpty)
        #expect(try bed.history(alice, with: "bob").suffix(3).map(\.status) == ["sent", "sent", "sent"])
        // Retrying again and syncing again send nothing twice.
        try bed.succeed(alice, ["retry"])
        try bed.sync(alice)

        let report = try bed.sync(bob)
        #expect(report["received"] as? Int == 3, "three messages (Alice's delivery credential went with her first, PROTOCOL §11)")
        let received = try bed.history(bob, with: "alice").incoming
        let expected = ["hello before anything breaks", "stored when the relay died"] + outage
        #expect(received.bodies == expected, "each message exactly once, in order")
        #expect(try bed.sync(bob)["received"] as? Int == 0)

        try bed.sync(alice)
        #expect(try bed.history(alice, with: "bob").outgoing.map(\.status) == ["delivered", "delivered", "delivered", "delivered"])
    }
}
