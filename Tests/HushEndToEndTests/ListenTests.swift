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

        // It connects first ({"event":"connection","online":true}); the message
        // sent after that arrives by push. --timeout ends it by itself, with 0.
        let result = try bed.listen(bob, seconds: 6, while: { try bed.send(alice, to: "bob", "pushed while listening") },
                                    until: "pushed while listening")
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

    /// Two live views on one home (a `hush listen` beside another, as beside
    /// a `hush chat`) each have a connection, and each pushed message is
    /// stored by whichever process takes it first. Each view shows every
    /// message once, whichever stored it, and so does a one-shot `hush sync`'s
    /// store. Before, the two split the messages between them.
    @Test func twoListenersOnOneHomeEachShowEveryMessageOnce() throws {
        let bed = try Testbed("listen-twice")
        let alice = try bed.newUser("alice"), bob = try bed.newUser("bob")
        try bed.addContact(alice, bob)
        try bed.addContact(bob, alice)
        try bed.send(alice, to: "bob", "before listening")
        try bed.sync(bob)
        let listeners = try (0..<2).map { _ in try bed.spawn(bob, ["listen", "--json", "--timeout", "25"]) }
        for listener in listeners {
            #expect(listener.wait(timeout: 20) { $0.stdout.contains("\"online\":true") }, "listen never connected: \(listener.stderr)")
        }
        let bodies = (1...6).map { "shared home \($0)" }
        for body in bodies { try bed.send(alice, to: "bob", body) }
        // One more while bob's one-shot sync may take it before either listener does.
        try bed.send(alice, to: "bob", "shared home 7")
        try bed.sync(bob)
        for (index, listener) in listeners.enumerated() {
            #expect(listener.wait(timeout: 15) { output in (bodies + ["shared home 7"]).allSatisfy { output.stdout.contains($0) } },
                    "listener \(index) missed messages: \(listener.stdout)")
            let result = listener.finish(timeout: 40)
            #expect(result.status == 0 && !result.crashed, "\(result)")
            let shown = result.stdout.split(separator: "\n").compactMap { line in
                (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
            }.filter { $0["event"] as? String == "message" }.compactMap { $0["body"] as? String }
            #expect(shown.sorted() == (bodies + ["shared home 7"]).sorted(), "listener \(index): each message once: \(shown)")
        }
        #expect(try bed.history(bob, with: "alice").incoming.bodies.count == 8)
    }

    /// --notify names the contact only (through whatever `notify-send` is on
    /// PATH: here a script that records its arguments), and --exec hands each
    /// event's JSON to a command, without the passphrase in its environment.
    @Test func notifyNamesTheContactOnlyAndExecGetsTheEventAsJSON() throws {
        let bed = try Testbed("listen-hooks")
        let alice = try bed.newUser("alice"), bob = try bed.newUser("bob")
        try bed.addContact(alice, bob)
        try bed.addContact(bob, alice)
        let bin = bed.root + "/bin", notified = bed.root + "/notified", events = bed.root + "/events"
        try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
        try "#!/bin/sh\nprintf '%s\\n' \"$@\" >> '\(notified)'\n".write(toFile: bin + "/notify-send", atomically: true, encoding: .utf8)
        chmod(bin + "/notify-send", 0o755)

        let environment = bed.environment(for: bob, overrides: ["PATH": "\(bin):/usr/bin:/bin"])
        let listener = try ChildProcess(["listen", "--notify", "--exec", "{ cat; env; } >> '\(events)'", "--timeout", "8"], environment: environment)
        #expect(listener.wait(timeout: 20) { $0.stdout.contains("connected to the relay") }, "listen never connected: \(listener.stderr)")
        try bed.send(alice, to: "bob", "the secret plan")
        let result = listener.finish(timeout: 30)
        #expect(result.status == 0 && !result.crashed, "\(result)")

        let notification = try String(contentsOfFile: notified, encoding: .utf8)
        #expect(notification.contains("Hush: message from alice"), "\(notification)")
        #expect(!notification.contains("secret"), "the text was shown without --notify-text: \(notification)")
        // Its own output (a service's goes to the journal) names the contact, without the text.
        #expect(result.stdout.contains("message from alice"), "\(result.stdout)")
        #expect(!result.stdout.contains("secret"), "the text was printed without --print-text: \(result.stdout)")

        let hookInput = try String(contentsOfFile: events, encoding: .utf8)
        let messages = hookInput.split(separator: "\n").compactMap { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
        }.filter { $0["event"] as? String == "message" }
        #expect(messages.count == 1 && messages.first?["body"] as? String == "the secret plan", "\(hookInput)")
        #expect(!hookInput.contains(HushEnvironment.passphrase) && !hookInput.contains("HUSH_PASSPHRASE"), "a hook saw the passphrase")
    }

    /// --print-text puts the text back in --notify's output, for those who want it.
    @Test func printTextWithNotifyPrintsTheMessageText() throws {
        let bed = try Testbed("listen-print-text")
        let alice = try bed.newUser("alice"), bob = try bed.newUser("bob")
        try bed.addContact(alice, bob)
        try bed.addContact(bob, alice)
        // No notify-send on PATH: --notify warns and goes on printing.
        let environment = bed.environment(for: bob, overrides: ["PATH": bed.root])
        let listener = try ChildProcess(["listen", "--notify", "--print-text", "--timeout", "6"], environment: environment)
        #expect(listener.wait(timeout: 20) { $0.stdout.contains("connected to the relay") }, "listen never connected: \(listener.stderr)")
        try bed.send(alice, to: "bob", "printed on request")
        let result = listener.finish(timeout: 20)
        #expect(result.status == 0 && !result.crashed, "\(result)")
        #expect(result.stdout.contains("alice: printed on request"), "\(result.stdout)")
        // --timeout closes the connection on purpose: no "disconnected …; reconnecting" at the end.
        #expect(!result.stdout.contains("reconnecting"), "\(result.stdout)")
    }

    @Test func printTextWithoutNotifyIsAUsageError() throws {
        let bed = try Testbed("listen-usage-print")
        let bob = try bed.newUser("bob")
        let result = try bed.hush(bob, ["listen", "--print-text", "--timeout", "1"])
        #expect(result.status == 64, "\(result)")
        #expect(result.stderr.contains("--print-text goes with --notify"), "\(result)")
    }

    @Test func notifyTextWithoutNotifyIsAUsageError() throws {
        let bed = try Testbed("listen-usage")
        let bob = try bed.newUser("bob")
        let result = try bed.hush(bob, ["listen", "--notify-text", "--timeout", "1"])
        #expect(result.status == 64, "\(result)")
        #expect(result.stderr.contains("--notify-text goes with --notify"), "\(result)")
    }
}
