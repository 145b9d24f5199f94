import Foundation
import Testing

/// `hush listen --json`: one JSON object per line, pushed in real time.
@Suite struct ListenTests {
    @Test func listenPrintsAMessageEventForAMessageSentWhileItListens() throws {
        let bed = try Testbed("listen")
        let alice = try bed.newUser("alice")
        let bob = try bed.newUser("bob")
        // Both add each other before anyone writes (each side starts a session).
        try bed.addContact(alice, bob)
        try bed.addContact(bob, alice)
        try bed.send(alice, to: "bob", "before listening")
        try bed.sync(bob)

        let listener = try bed.spawn(bob, ["listen", "--json", "--timeout", "6"])
        // It connects first ({"event":"connection","online":true}); a message
        // sent after that can only arrive by the relay's push over the socket,
        // since listen fetches on connect and on push, never on a timer.
        #expect(listener.wait(timeout: 20) { $0.stdout.contains("\"online\":true") }, "listen never connected: \(listener.stderr)")
        try bed.send(alice, to: "bob", "pushed while listening")
        #expect(listener.wait(timeout: 5) { $0.stdout.contains("pushed while listening") }, "no message event: \(listener.stdout)")

        // --timeout ends it by itself, with 0.
        let result = listener.finish(timeout: 20)
        #expect(result.status == 0 && !result.crashed, "\(result)")
        #expect(!result.stderr.contains("harness: killed"), "listen ignored --timeout")

        let lines = result.stdout.split(separator: "\n").map(String.init)
        let events = try lines.map { line -> [String: Any] in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "not one JSON object: \(line)")
        }
        #expect(events.allSatisfy { $0["event"] is String })
        let messages = events.filter { $0["event"] as? String == "message" }
        #expect(messages.count == 1, "\(lines)")
        let message = try #require(messages.first)
        #expect(message["body"] as? String == "pushed while listening")
        #expect(message["contact"] as? String == "alice")
        #expect(message["direction"] as? String == "in")
        #expect(message["clientMessageId"] is String)

        // It was stored once, and its delivery receipt went back.
        #expect(try bed.history(bob, with: "alice").incoming.bodies == ["before listening", "pushed while listening"])
        try bed.sync(alice)
        #expect(try bed.history(alice, with: "bob").last?.status == "delivered")
    }
}
