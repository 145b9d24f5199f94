import Foundation
import Glibc
import Testing

/// The sender's process dies after the message was sealed and committed to
/// the outbox but before the relay answered the post: the next run delivers
/// it, exactly once.
@Suite struct SenderCrashTests {
    @Test func aSenderKilledBetweenSealingAndPostingDeliversExactlyOnceOnRestart() throws {
        let bed = try Testbed("crash")
        let alice = try bed.newUser("alice")
        let bob = try bed.newUser("bob")
        try bed.addContact(alice, bob)
        try bed.send(alice, to: "bob", "a first message, to start the session")
        try bed.sync(bob)
        try bed.addContact(bob, alice)

        // The relay hangs: its port accepts connections and never answers.
        // (RelayClient waits 30 s for an answer, far longer than this test waits.)
        let port = bed.relay.port
        bed.relay.kill()
        let blackHole = try BlackHole(port: port)
        defer { blackHole.stop() }

        let sender = try bed.spawn(alice, ["send", "bob", "sealed, then the sender died"])
        // `hush send` commits the sealed envelope to the outbox in one transaction
        // and only then opens a connection to the relay: once the black hole has a
        // connection, the send is blocked on the post.
        #expect(blackHole.waitForConnection(timeout: 30), "hush send never contacted the relay: \(sender.stderr)")
        usleep(200_000)
        #expect(sender.isRunning, "hush send should be blocked waiting for the relay")
        sender.signal(SIGKILL)
        let killed = sender.finish(timeout: 10)
        #expect(killed.signalled && killed.status == 128 + SIGKILL, "\(killed)")
        #expect(killed.stdout.isEmpty, "it never learned the relay's answer")

        blackHole.stop()
        try bed.relay.start()
        #expect(bed.relay.port == port)

        // The sealed message survived the kill, pending.
        let outbox = try bed.outbox(alice)
        #expect(outbox.count == 1)
        #expect(outbox.first?["status"] as? String == "pending")
        #expect(try bed.history(alice, with: "bob").last?.status == "pending")

        // The next run posts it (Alice's delivery credential went with her first
        // message, PROTOCOL §11: nothing else is owed).
        let report = try bed.sync(alice)
        #expect(report["sent"] as? Int == 1)
        #expect(try bed.outbox(alice).isEmpty)
        try bed.sync(alice)

        #expect(try bed.sync(bob)["received"] as? Int == 1, "the message")
        let received = try bed.history(bob, with: "alice").incoming
        #expect(received.count("sealed, then the sender died") == 1)
        #expect(received.count == 2)
        #expect(try bed.sync(bob)["received"] as? Int == 0)

        try bed.sync(alice)
        let sent = try bed.history(alice, with: "bob")
        #expect(sent.count("sealed, then the sender died") == 1)
        #expect(sent.last?.status == "delivered")
    }
}
