import Foundation
import Testing

/// Someone deposits forged bytes into Bob's mailbox (deposits need no login:
/// sealed sender). Bob's sync reports them, keeps them aside, and still gets
/// every genuine message around them.
@Suite struct TamperedEnvelopeTests {
    @Test func aTamperedEnvelopeIsReportedAndSetAsideAndTheGenuineOnesStillArrive() throws {
        let bed = try Testbed("tamper")
        // Alice talks to the relay through a recorder, as anyone on the path
        // could; that is where the attacker lifts a genuine envelope from.
        let wire = try RecordingProxy(forwardingTo: bed.relay.port)
        defer { wire.stop() }
        try bed.relay.acceptLogins(for: wire.url)
        let alice = try bed.newUser("alice", relayURL: wire.url)
        let bob = try bed.newUser("bob")
        try bed.addContact(alice, bob)

        try bed.send(alice, to: "bob", "genuine, before the forgeries")
        let genuine = try #require(wire.depositedEnvelopes.last, "no deposit went over the wire")

        var flipped = genuine
        flipped[flipped.count / 2] ^= 0x01
        var random = (0..<genuine.count).map { _ in UInt8.random(in: 0...255) }
        // Random after the version byte: one time in 256 a random first byte read as a group envelope's,
        // which waits for a group key instead of being set aside (a make test run drew it).
        random[0] = genuine[0]
        for (bytes, id) in [(flipped, "forged-one-bit-flipped"), (random, "forged-random-bytes"), (genuine, "forged-verbatim-replay")] {
            let response = try bed.depositRaw(bytes, to: bob, requestID: id)
            #expect(response.status == 201, "the relay cannot tell a forgery from a sealed envelope: \(response.status) \(response.body)")
        }
        try bed.send(alice, to: "bob", "genuine, after the forgeries")
        // And the delivery credential and display name Alice's first message hands over (PROTOCOL §11, §10.4).
        #expect(try bed.storedEnvelopes(for: bob) == 7)

        // The sync reports the three it could not use (exit 24, lines on stderr): the two
        // forgeries whose sealed layer does not open, and the verbatim replay, which names
        // Alice; she is still a message request for Bob, so nothing is sent back to her (no
        // decryption error either: docs/PROTOCOL.md §10.2)...
        let sync = try bed.hush(bob, ["sync", "--json"])
        #expect(sync.status == 24, "\(sync)")
        #expect(!sync.crashed)
        #expect(sync.stderr.contains("3 envelope(s) could not be decrypted and were set aside"), "\(sync.stderr)")
        #expect(!sync.stderr.contains("asked"), "\(sync.stderr)")
        #expect(sync.stderr.contains("hush audit local"))
        let report = try sync.json()
        #expect(report["received"] as? Int == 4, "the credential, the display name and the two genuine messages")
        #expect(report["quarantined"] as? Int == 3)
        #expect(report["resendRequested"] as? Int == 0)
        #expect(try bed.storedEnvelopes(for: alice) == 0, "nothing went back to the stranger")

        // ...still stores both genuine messages, once each...
        try bed.addContact(bob, alice)
        #expect(try bed.history(bob, with: "alice").incoming.bodies == ["genuine, before the forgeries", "genuine, after the forgeries"])

        // ...keeps the others aside with a reason...
        let audit = try bed.hush(bob, ["audit", "local", "--json"])
        #expect(audit.status == 0, "\(audit)")
        let quarantined = try #require(try audit.json()["quarantined"] as? [[String: Any]])
        #expect(quarantined.count == 3)
        #expect(quarantined.allSatisfy { ($0["reason"] as? String)?.isEmpty == false && $0["bytes"] as? Int == genuine.count })
        let text = try bed.succeed(bob, ["audit", "local"])
        #expect(text.stdout.contains("3 envelope(s) that could not be decrypted"))

        // ...and is done with them: the relay deleted all five, the next sync is clean.
        #expect(try bed.storedEnvelopes(for: bob) == 0)
        let again = try bed.hush(bob, ["sync", "--json"])
        #expect(again.status == 0, "\(again)")
        #expect(try again.json()["received"] as? Int == 0)

        // The session survived: the conversation goes on both ways.
        try bed.send(bob, to: "alice", "still here")
        try bed.sync(alice)
        #expect(try bed.history(alice, with: "bob").incoming.bodies == ["still here"])
        #expect(try bed.history(alice, with: "bob").outgoing.map(\.status) == ["delivered", "delivered"])
    }
}
