import Foundation
import Testing

/// A relay with its own self-signed key, as an operator without a CA runs
/// it: users given the pinned URL talk through it with the real `hush`; a
/// wrong pin is refused before anything is registered, and says so.
@Suite struct PinnedRelayTests {
    @Test func usersExchangeThroughAPinnedRelayAndAWrongPinIsRefused() throws {
        let bed = try Testbed("pinned", relayOptions: ["--tls-self-signed"])
        let pinned = try #require(bed.relay.pinnedURL)
        #expect(pinned.hasPrefix("https://127.0.0.1:"))
        let alice = try bed.newUser("alice", relayURL: pinned), bob = try bed.newUser("bob", relayURL: pinned)
        try bed.meet(alice, bob, first: "hello over pinned TLS")
        try bed.send(bob, to: "alice", "and back")
        try bed.sync(alice)
        #expect(try bed.history(alice, with: "bob").incoming.bodies == ["and back"])

        let wrongPin = String(repeating: "A", count: 43)
        let mallory = User(name: "mallory", home: bed.root + "/mallory")
        let refused = try bed.hush(mallory, ["init", "--name", "mallory", "--relay", bed.relay.url + "#pin=" + wrongPin])
        #expect(refused.status != 0)
        #expect(refused.stderr.contains("does not match the pin in its URL (pinned \(wrongPin), presented \(bed.relay.pin ?? "?"))"), "\(refused)")
        // No pin: the system's trust store, which does not know this key; no silent fall-back either.
        let unpinned = try bed.hush(User(name: "trent", home: bed.root + "/trent"), ["init", "--name", "trent", "--relay", bed.relay.url])
        #expect(unpinned.status != 0)
        #expect(unpinned.stderr.contains("does not trust the relay's certificate"), "\(unpinned)")
    }
}
