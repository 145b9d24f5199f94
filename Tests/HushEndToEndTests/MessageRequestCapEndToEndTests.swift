import Foundation
import HushCrypto
import HushMessenger
import HushProtocol
import HushRelayClient
import HushStore
import HushTesting
import Testing

/// Strangers who pay the relay's work can write first as often as they like;
/// the real `hush` keeps at most 200 message requests and a newcomer's request
/// still gets in (issue 29, item 9). The hostile run sent 55 such first
/// contacts in 90 s from a script; here 230 scripted strangers write to a real
/// `hush` home through a real relay.
@Suite struct MessageRequestCapEndToEndTests {
    /// A stranger that writes to the relay's API directly, as a script would:
    /// its own identity and store, no `hush` process.
    final class ScriptedStranger {
        let directory: TemporaryDirectory
        let messenger: Messenger

        init(_ index: Int, relay: RelayServer) throws {
            directory = try TemporaryDirectory(label: "stranger-\(index)")
            let identity = IdentityKeyPair.generate(using: SystemRandom())
            let store = try MessageStore(path: directory.path("messages.db"), key: SecureBytes(randomCount: 32))
            messenger = Messenger(identity: identity, store: store,
                                  transport: RelayClientTransport(client: RelayClient(baseURL: relay.url)))
        }

        func write(_ text: String, to address: String) async throws {
            // No one-time prekeys: nobody writes to a stranger first here, and
            // 50 ML-KEM key pairs each (at -O0 in a debug build) made this the
            // process suites' last test to end, a minute after the others.
            try await messenger.register(oneTimePrekeys: 0)
            _ = try await messenger.addContact(name: "target", address: address)
            _ = try await messenger.send(text: text, to: "target")
        }
    }

    /// A relay that lets one loopback address play 230 strangers: the limits
    /// per source address and the proof of work are the relay's defence, not
    /// the subject here.
    static func permissiveRelay() throws -> Testbed {
        let config = FileManager.default.temporaryDirectory.appendingPathComponent("hush-cap-relay-\(UUID().uuidString).yaml")
        try """
            rate-limits:
              first-contact-work-bits: 0
              first-contact-per-address-burst: 100000
              auth-per-address-burst: 100000
              per-address-burst: 1000000
              bundles-per-identity-burst: 100000
            """.write(to: config, atomically: true, encoding: .utf8)
        // Read once, when the relay starts.
        defer { try? FileManager.default.removeItem(at: config) }
        return try Testbed("request-cap", relayOptions: ["--config", config.path])
    }

    static func requests(_ bed: Testbed, of user: User) throws -> (names: [String: String], removed: Int) {
        let list = try bed.succeed(user, ["requests", "list", "--json"]).json()
        let requests = try #require(list["requests"] as? [[String: Any]])
        var names: [String: String] = [:]
        for request in requests {
            let body = try #require((request["lastMessage"] as? [String: Any])?["body"] as? String, "\(request)")
            names[body] = request["name"] as? String
        }
        return (names, list["removedForRoom"] as? Int ?? -1)
    }

    @Test func twoHundredRequestsWaitAndANewcomerStillGetsIn() async throws {
        let bed = try Self.permissiveRelay()
        let bob = try bed.newUser("bob"), carol = try bed.newUser("carol"), dave = try bed.newUser("dave")
        // Carol is a contact before the flood: contacts never count and are never removed.
        try bed.acquaint(carol, bob)

        let strangers = 230
        for index in 0..<strangers {
            try await ScriptedStranger(index, relay: bed.relay).write("junk \(index)", to: bob.address)
            // Bob syncs in between, as a running `hush listen` would: arrival order decides.
            if index == 149 { try bed.sync(bob) }
        }
        let report = try bed.sync(bob)
        #expect(report["requests"] as? Int == 200, "\(report)")

        var (names, removed) = try Self.requests(bed, of: bob)
        #expect(names.count == 200 && removed == 30, "\(names.count) requests, \(removed) removed")
        let expected = Set((30..<strangers).map { "junk \($0)" })
        #expect(Set(names.keys) == expected, "the 30 that waited longest make room; kept too: \(Set(names.keys).subtracting(expected).count), missing: \(expected.subtracting(names.keys).sorted().prefix(5))")
        let text = try bed.succeed(bob, ["requests"]).stdout
        #expect(text.contains("30 older request(s) were removed to make room: at most 200 wait at once."), "\(text)")

        // A removed request is gone with its messages.
        func hits(_ words: String) throws -> Int {
            try #require(try bed.succeed(bob, ["search", words, "--json"]).json()["hits"] as? [Any]).count
        }
        #expect(try hits("junk 7") == 0 && hits("junk 29") == 0 && hits("junk 30") == 1 && hits("junk 229") == 1)

        // A newcomer who writes now takes the place of the request that waited longest.
        try bed.addContact(dave, bob)
        try bed.send(dave, to: "bob", "hello, it is dave")
        try bed.sync(bob)
        (names, removed) = try Self.requests(bed, of: bob)
        #expect(names.count == 200 && removed == 31 && names["hello, it is dave"] != nil && names["junk 30"] == nil)

        // The contact from before is untouched, and can still be answered.
        #expect(try bed.history(bob, with: "carol").map(\.body).contains("hello"))
        try bed.send(bob, to: "carol", "still here")
        try bed.sync(carol)
        #expect(try bed.history(carol, with: "bob").count("still here") == 1)
    }
}
