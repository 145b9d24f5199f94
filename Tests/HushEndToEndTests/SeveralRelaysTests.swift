import Foundation
import PostgresTestCluster
import Testing

/// Two `hush relay serve` processes on one PostgreSQL database, as an
/// operator runs them behind a load balancer: users on either instance reach
/// each other, pushes cross instances, and killing one instance loses and
/// duplicates nothing.
@Suite struct SeveralRelaysTests {
    @Test func twoRelayInstancesShareMailboxesPushAcrossAndSurviveAKill() async throws {
        let database = try await PostgresTestCluster.freshDatabase("several")
        let bed = try Testbed("several-relays", relayOptions: ["--database", database])
        let relayA = bed.relay
        // The same data directory: blob bytes are shared by every instance.
        let relayB = try RelayServer(dataDirectory: relayA.dataDirectory, options: ["--database", database])
        defer { relayB.kill() }
        // Alice goes through a balancer that prefers A and fails over to B; Bob talks to B.
        let balancer = try RecordingProxy(balancing: [relayA.port, relayB.port])
        defer { balancer.stop() }
        try relayA.acceptLogins(for: balancer.url)
        try relayB.acceptLogins(for: balancer.url)
        let alice = try bed.newUser("alice", relayURL: balancer.url)
        let bob = try bed.newUser("bob", relayURL: relayB.url)
        let carol = try bed.newUser("carol", relayURL: relayA.url)

        // Registered on A, found on B (and the other way round): one database.
        try bed.meet(alice, bob)
        try bed.send(bob, to: "alice", "from B to A")
        try bed.sync(alice)
        #expect(try bed.history(alice, with: "bob").incoming.bodies == ["from B to A"])
        // Alice answered with her delivery credential; with it, Bob's deposits
        // are not a stranger's (which the relay limits to 10 a minute).
        try bed.sync(bob)

        // The same request id through A, then through B, is one deposit.
        let envelope = (0..<600).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        let first = try bed.depositRaw(envelope, to: carol, requestID: "same-request", port: relayA.port)
        let again = try bed.depositRaw(envelope, to: carol, requestID: "same-request", port: relayB.port)
        #expect(first.status == 201 && again.status == 201, "\(first.status) \(again.status)")
        #expect(first.body == again.body, "one request id gave two deposits: \(first.body) / \(again.body)")

        // Alice listens on A; what Bob sends through B reaches her at once (a
        // push: listen fetches on connect and on push, never on a timer).
        let listener = try bed.spawn(alice, ["listen", "--json", "--timeout", "90"])
        #expect(listener.wait(timeout: 20) { $0.stdout.contains("\"online\":true") }, "listen never connected: \(listener.stderr)")
        try bed.send(bob, to: "alice", "pushed across instances")
        #expect(listener.wait(timeout: 10) { $0.stdout.contains("pushed across instances") },
                "the push did not cross instances: \(listener.stdout)")

        // Mid-exchange, A dies (SIGKILL). Alice's listener reconnects through
        // the balancer to B; what either of them sends meanwhile arrives once.
        var fromBob: [String] = [], fromAlice: [String] = []
        for index in 1...8 {
            if index == 3 { relayA.kill() }
            let text = "bob \(index)"
            try bed.send(bob, to: "alice", text)
            fromBob.append(text)
        }
        for index in 1...4 {
            let text = "alice \(index)"
            try bed.send(alice, to: "bob", text)
            fromAlice.append(text)
        }
        #expect(listener.wait(timeout: 60) { child in fromBob.allSatisfy { child.stdout.contains("\"\($0)\"") } },
                "after the kill, the listener missed some of Bob's messages: \(listener.stdout)")
        _ = listener.finish(timeout: 5)
        try bed.sync(alice)
        try bed.sync(bob)
        let aliceSees = try bed.history(alice, with: "bob").incoming
        let bobSees = try bed.history(bob, with: "alice").incoming
        for text in ["from B to A", "pushed across instances"] + fromBob {
            #expect(aliceSees.count(text) == 1, "alice has \"\(text)\" \(aliceSees.count(text)) times")
        }
        for text in ["hello"] + fromAlice {
            #expect(bobSees.count(text) == 1, "bob has \"\(text)\" \(bobSees.count(text)) times")
        }
        #expect(try bed.outbox(alice).isEmpty && bed.outbox(bob).isEmpty)

        // SIGTERM is a graceful stop for an instance on PostgreSQL too (its
        // notice connection is cancelled, which is not a failure): exit 0.
        let stopped = relayB.stop()
        #expect(stopped?.status == 0 && stopped?.crashed == false, "instance B did not stop cleanly on SIGTERM: \(String(describing: stopped))")
    }

}
