import Foundation
import Glibc
import HushDaemon
import Testing

/// `hush daemon` (issue 31): one process owns the account; every account
/// command typed beside it is handed to it (no passphrase, one writer); a
/// second owner is refused with who holds the account; a kill -9 loses nothing.
@Suite struct DaemonTests {
    /// The environment of a command typed beside a running daemon: no passphrase at all.
    static let noPassphrase: [String: String?] = ["HUSH_PASSPHRASE": nil]

    /// Starts alice's daemon and waits until its socket answers.
    static func startDaemon(_ bed: Testbed, _ user: User) throws -> ChildProcess {
        let daemon = try bed.spawn(user, ["daemon"])
        let ready = daemon.wait(timeout: 30) { $0.stderr.contains("hush daemon: serving") }
        try #require(ready, "the daemon did not start: \(daemon.stderr)")
        return daemon
    }

    @Test func commandsBesideADaemonGoThroughItWithoutAPassphrase() throws {
        let bed = try Testbed("daemon-commands")
        let alice = try bed.newUser("alice"), bob = try bed.newUser("bob")
        try bed.acquaint(alice, bob)
        let daemon = try Self.startDaemon(bed, alice)

        // A send with no passphrase anywhere: the daemon's account sends it.
        let sent = try bed.hush(alice, ["send", "bob", "through the daemon", "--json"], environment: Self.noPassphrase)
        #expect(sent.status == 0, "\(sent)")
        #expect(try sent.json()["status"] as? String == "sent", "\(sent)")
        // Standard input travels with the command; the text output is the in-process one.
        let piped = try bed.hush(alice, ["send", "bob"], stdin: "piped through the daemon\n", environment: Self.noPassphrase)
        #expect(piped.status == 0 && piped.stdout.contains("to bob: ✓ sent"), "\(piped)")
        // Errors keep their exit code and words.
        let unknown = try bed.hush(alice, ["send", "carol", "who?"], environment: Self.noPassphrase)
        #expect(unknown.status == 21 && unknown.stderr.contains("carol"), "\(unknown)")
        let usage = try bed.hush(alice, ["history"], environment: Self.noPassphrase)
        #expect(usage.status == 64, "\(usage)")
        // Most lines go to the daemon unparsed (DaemonFastPath); one naming its directory with
        // --home is parsed here first, and reaches the same daemon.
        let named = try bed.hush(alice, ["send", "--home", alice.home, "bob", "named by --home"], environment: Self.noPassphrase)
        #expect(named.status == 0 && named.stdout.contains("to bob: ✓ sent"), "\(named)")
        // A mistyped option is the parser's message from the daemon, as in a process of its own.
        let mistyped = try bed.hush(alice, ["whoami", "--jsno"], environment: Self.noPassphrase)
        #expect(mistyped.status == 64 && mistyped.stderr.contains("--jsno"), "\(mistyped)")

        // `hush listen` beside the daemon prints the daemon's events, as it would on its own.
        let listener = try bed.spawn(alice, ["listen", "--json"])
        try #require(listener.wait(timeout: 30) { $0.stdout.contains("\"online\":true") }, "listen: \(listener.stdout) \(listener.stderr)")
        // Bob's message arrives by push and is stored by the daemon, not by a sync of alice's.
        try bed.send(bob, to: "alice", "to alice while her daemon runs")
        #expect(listener.wait(timeout: 30) { $0.stdout.contains("to alice while her daemon runs") }, "listen: \(listener.stdout)")
        listener.signal(SIGTERM)
        let listened = listener.finish(timeout: 20)
        #expect(listened.status == 0 && !listened.crashed, "\(listened)")
        var stored = false
        for _ in 0..<100 where !stored {
            let history = try bed.hush(alice, ["history", "bob", "--json", "--no-receipts"], environment: Self.noPassphrase)
            stored = history.stdout.contains("to alice while her daemon runs")
            if !stored { usleep(100_000) }
        }
        #expect(stored, "the daemon did not store a pushed message")

        let status = try bed.hush(alice, ["daemon", "status", "--json"], environment: Self.noPassphrase)
        #expect(status.status == 0 && status.stdout.contains("\"address\":\"\(alice.address)\""), "\(status)")

        // A second daemon is refused with who holds the account (`hush chat` is a client of the daemon: ChatThroughDaemonTests).
        let second = try bed.hush(alice, ["daemon"], timeout: 20)
        #expect(second.status == 26 && second.stderr.contains("hush daemon"), "\(second)")

        let stop = try bed.hush(alice, ["daemon", "stop"], environment: Self.noPassphrase)
        #expect(stop.status == 0 && stop.stdout.contains("daemon stopped"), "\(stop)")
        let ended = daemon.finish(timeout: 20)
        #expect(ended.status == 0 && !ended.crashed, "\(ended)")

        // Without the daemon, commands open the account themselves again (and need the passphrase).
        let alone = try bed.hush(alice, ["send", "bob", "no daemon now"], environment: Self.noPassphrase)
        #expect(alone.status == 16, "\(alone)")
        try bed.send(alice, to: "bob", "no daemon now")
        try bed.sync(bob)
        let bobs = try bed.history(bob, with: "alice")
        for text in ["through the daemon", "piped through the daemon", "named by --home", "no daemon now"] {
            #expect(bobs.count(text) == 1, "\(text): \(bobs)")
        }
    }

    /// The RPC layer itself: malformed lines are answered with JSON-RPC's
    /// errors and the connection (and the daemon) go on.
    @Test func theLocalAPIAnswersAsPublishedAndMalformedLinesGetJSONRPCErrors() throws {
        let bed = try Testbed("daemon-rpc")
        let alice = try bed.newUser("alice")
        let daemon = try Self.startDaemon(bed, alice)
        defer { daemon.signal(SIGTERM); _ = daemon.finish(timeout: 20) }

        let lines = [
            "this is not json",
            #"{"jsonrpc":"2.0","id":1,"method":"no.such.method"}"#,
            #"{"jsonrpc":"2.0","id":2,"method":"messages.send","params":{"to":"bob"}}"#,
            #"{"jsonrpc":"1.0","id":3,"method":"daemon.status"}"#,
            #"[]"#,
            #"{"jsonrpc":"2.0","id":4,"method":"daemon.status","params":[1]}"#,
            #"[{"jsonrpc":"2.0","id":5,"method":"daemon.status"},{"jsonrpc":"2.0","method":"daemon.status"}]"#,
            #"{"jsonrpc":"2.0","id":6,"method":"messages.send","params":{"to":"nobody","text":"x"}}"#,
        ]
        let answers = try RawSocket.exchange(path: alice.home + "/daemon.sock", lines: lines, expecting: 8)
        func error(_ index: Int) -> [String: Any]? { (answers[index] as? [String: Any])?["error"] as? [String: Any] }
        #expect(error(0)?["code"] as? Int == -32700, "\(answers)")
        #expect(error(1)?["code"] as? Int == -32601, "\(answers)")
        #expect(error(2)?["code"] as? Int == -32602, "\(answers)")
        #expect(error(3)?["code"] as? Int == -32600, "\(answers)")
        #expect(error(4)?["code"] as? Int == -32600, "\(answers)")
        #expect(error(5)?["code"] as? Int == -32602, "\(answers)")
        // A batch is answered with one array, the notification in it left out.
        let batch = answers[6] as? [[String: Any]]
        #expect(batch?.count == 1 && (batch?.first?["result"] as? [String: Any])?["pid"] != nil, "\(answers)")
        // HushKit's errors carry the exit code `hush` would give.
        #expect(error(7)?["code"] as? Int == 21, "\(answers)")
        #expect(daemon.isRunning, "\(daemon.stderr)")

        // The published schema is what the daemon answers (HUSH_UPDATE_DAEMON_API=1 rewrites it).
        let discovered = try bed.hush(alice, ["rpc", "rpc.discover"], environment: Self.noPassphrase)
        try #require(discovered.status == 0, "\(discovered)")
        let published = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("docs/daemon-openrpc.json")
        let live = try JSONSerialization.jsonObject(with: Data(discovered.stdout.utf8))
        let pretty = try JSONSerialization.data(withJSONObject: live, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
        if ProcessInfo.processInfo.environment["HUSH_UPDATE_DAEMON_API"] == "1" {
            try (pretty + Data("\n".utf8)).write(to: published)
        }
        let onDisk = try JSONSerialization.jsonObject(with: Data(contentsOf: published))
        #expect(NSDictionary(dictionary: live as? [String: Any] ?? [:]).isEqual(to: onDisk as? [String: Any] ?? [:]),
                "docs/daemon-openrpc.json differs from what the daemon answers: run HUSH_UPDATE_DAEMON_API=1 swift test --filter DaemonTests")
    }

    /// A command that reads standard input, handed over without any, reads
    /// an empty one, never the daemon's own: a daemon started in a terminal
    /// would otherwise wait on that terminal forever.
    /// A daemon stopped with Ctrl-Z or SIGSTOP still accepts connections but
    /// reads nothing: every command hung there with no word (a walkthrough),
    /// and a send went out when it was continued, after the user had sent it
    /// again. Now each says it does not answer (exit 26) and hands it nothing;
    /// continued, the daemon serves again.
    @Test func aStoppedDaemonIsNamedAndHandedNothing() throws {
        let bed = try Testbed("daemon-stopped")
        let alice = try bed.newUser("alice"), bob = try bed.newUser("bob")
        try bed.acquaint(alice, bob)
        let daemon = try Self.startDaemon(bed, alice)
        defer { daemon.signal(SIGCONT); daemon.signal(SIGTERM); _ = daemon.finish(timeout: 20) }
        daemon.signal(SIGSTOP)
        for arguments in [["send", "bob", "while stopped"], ["daemon", "status"], ["daemon", "stop"], ["listen", "--timeout", "3"]] {
            let result = try bed.hush(alice, arguments, environment: Self.noPassphrase, timeout: 30)
            #expect(result.status == 26 && !result.signalled && result.stderr.contains("does not answer"), "\(arguments): \(result)")
        }
        daemon.signal(SIGCONT)
        let after = try bed.hush(alice, ["send", "bob", "after continuing", "--json"], environment: Self.noPassphrase, timeout: 30)
        #expect(after.status == 0, "\(after)")
        try bed.sync(bob)
        #expect(try bed.history(bob, with: "alice").incoming.bodies.filter { $0 == "while stopped" }.isEmpty)
    }

    /// A client that ends its input after its request (shutdown(SHUT_WR), as
    /// `printf … | nc -U` does) still gets the answer: the daemon ran the
    /// request and dropped the answer (a walkthrough: the message went, the
    /// client read nothing). The last line needs no newline.
    @Test func aClientThatEndsItsInputStillGetsItsAnswer() throws {
        let bed = try Testbed("daemon-half-close")
        let alice = try bed.newUser("alice"), bob = try bed.newUser("bob")
        try bed.acquaint(alice, bob)
        let daemon = try Self.startDaemon(bed, alice)
        defer { daemon.signal(SIGTERM); _ = daemon.finish(timeout: 20) }
        for (index, line) in [#"{"jsonrpc":"2.0","id":7,"method":"messages.send","params":{"to":"bob","text":"half closed"}}"#,
                              #"{"jsonrpc":"2.0","id":8,"method":"daemon.status"}"#].enumerated() {
            let connection = try DaemonConnection.connect(socket: DaemonSocket.path(home: alice.home))
            try connection.send(line: line)
            connection.endSending()
            let answer = try #require(try connection.receive(), "no answer to request \(index)")
            #expect(answer["id"]?.integerValue == Int64(7 + index) && answer["result"] != nil, "\(answer)")
            connection.close()
        }
        try bed.sync(bob)
        #expect(try bed.history(bob, with: "alice").incoming.bodies.filter { $0 == "half closed" }.count == 1)
    }

    @Test func aCommandWithoutStandardInputNeverReadsTheDaemons() throws {
        let bed = try Testbed("daemon-stdin")
        let alice = try bed.newUser("alice"), bob = try bed.newUser("bob")
        try bed.acquaint(alice, bob)
        let daemon = try bed.spawnInTerminal(alice, ["daemon"])
        defer { daemon.signal(SIGTERM); _ = daemon.finish(timeout: 20) }
        try #require(daemon.wait(timeout: 30) { $0.stdout.contains("hush daemon: serving") }, "\(daemon.stdout)")
        let result = try bed.hush(alice, ["rpc", "cli.run", #"{"argv": ["send", "bob"], "capture": true}"#],
                                  environment: Self.noPassphrase, timeout: 20)
        #expect(result.status == 0 && !result.signalled, "\(result)")
        #expect(result.stdout.contains("\"exitCode\":64") && result.stdout.contains("empty"), "\(result)")
    }

    /// Colour follows the client's standard output and NO_COLOR, never the
    /// daemon's own terminal: a daemon started in one wrote escape codes
    /// into every client's pipe (`hush history bob | grep …`).
    @Test func colourFollowsTheClientNotTheDaemon() throws {
        let bed = try Testbed("daemon-colour")
        let alice = try bed.newUser("alice"), bob = try bed.newUser("bob")
        try bed.acquaint(alice, bob)
        try bed.send(alice, to: "bob", "colour check")
        // In a terminal, and without the tests' NO_COLOR: this daemon's own output is in colour.
        let daemon = try ChildProcess(["daemon"], environment: bed.environment(for: alice, overrides: [
            "NO_COLOR": nil, "TERM": "xterm-256color", "SWIFT_BACKTRACE": "interactive=no"]), terminal: (80, 24))
        defer { daemon.signal(SIGTERM); _ = daemon.finish(timeout: 20) }
        try #require(daemon.wait(timeout: 30) { $0.stdout.contains("hush daemon: serving") }, "\(daemon.stdout)")

        let piped = try bed.hush(alice, ["history", "bob"], environment: ["HUSH_PASSPHRASE": nil, "NO_COLOR": nil])
        #expect(piped.status == 0 && piped.stdout.contains("colour check"), "\(piped)")
        #expect(!piped.stdout.contains("\u{1B}["), "a pipe gets no escape codes: \(piped.stdout)")

        func captured(_ extra: String) throws -> String {
            let result = try bed.hush(alice, ["rpc", "cli.run", #"{"argv": ["history", "bob"], "capture": true"# + extra + "}"],
                                      environment: Self.noPassphrase)
            #expect(result.status == 0, "\(result)")
            return result.stdout
        }
        #expect(try captured(#", "stdoutIsTerminal": true"#).contains(#"\u001b["#), "a client's terminal gets colour")
        #expect(try !captured(#", "stdoutIsTerminal": true, "noColor": true"#).contains(#"\u001b["#), "NO_COLOR wins")
    }

    /// Another user's process is answered with a refusal, never served, even
    /// when the file permissions are opened up for the test.
    @Test(.enabled(if: getuid() == 0, "needs root to run a process as another user"))
    func anotherUsersProcessIsRefused() throws {
        let bed = try Testbed("daemon-peer")
        let alice = try bed.newUser("alice")
        let daemon = try Self.startDaemon(bed, alice)
        defer { daemon.signal(SIGTERM); _ = daemon.finish(timeout: 20) }
        // Open the way to the socket (0711 directories, a 0666 socket): only the peer check is left.
        // Only the test's own directories: the temporary directory (TMPDIR, /tmp when unset) is
        // the machine's, open to everyone already, and is left as it is.
        let temporary = FileManager.default.temporaryDirectory.standardizedFileURL.path
        func mode(_ path: String) -> mode_t {
            var info = stat()
            return stat(path, &info) == 0 ? info.st_mode & 0o7777 : 0
        }
        let temporaryMode = mode(temporary)
        // Declared before the restoring `defer` below, so it runs after it.
        defer { #expect(mode(temporary) == temporaryMode, "the test changed the mode of \(temporary)") }
        var directory = alice.home
        var opened: [String] = []
        while directory != "/" && directory != temporary {
            opened.append(directory)
            directory = (directory as NSString).deletingLastPathComponent
        }
        for path in opened { chmod(path, 0o711) }
        chmod(alice.home + "/daemon.sock", 0o666)
        defer { for path in opened { chmod(path, 0o700) }; chmod(alice.home + "/daemon.sock", 0o600) }

        let result = try ChildProcess(["--reuid=65534", "--regid=65534", "--clear-groups", HushBinary.path, "rpc", "daemon.status"],
                                      environment: bed.environment(for: alice, overrides: Self.noPassphrase),
                                      executable: "/usr/bin/setpriv").finish(timeout: 30)
        #expect(result.status != 0 && result.stderr.contains("refused"), "\(result)")
        #expect(!result.stdout.contains(alice.address), "\(result)")
        #expect(daemon.isRunning)
    }

    /// A daemon killed with -9 in the middle of bursts, restarted: every
    /// message stored once, nothing lost, nothing sent twice.
    @Test func aDaemonKilledInTheMiddleLosesNothing() throws {
        let burst = SoakSettings.fromEnvironment(defaultMessages: 260).messages
        let bed = try Testbed("daemon-kill")
        let alice = try bed.newUser("alice"), bob = try bed.newUser("bob")
        try bed.acquaint(alice, bob)
        var daemon = try Self.startDaemon(bed, alice)
        let firstSeq = try Self.latestSeq(bed, alice)
        var bobSent: [String] = ["hi"], aliceSent: [String] = []
        for round in 0..<2 {
            // Bob's burst arrives by push while alice's own sends go through her daemon.
            let lines = (0..<burst).map { "burst \(round) message \($0)" }
            let piped = try bed.hush(bob, ["chat", "alice"], stdin: lines.joined(separator: "\n") + "\n", timeout: 300)
            #expect(piped.status == 0, "\(piped)")
            bobSent += lines
            for n in 0..<3 {
                let text = "alice through the daemon \(round).\(n)"
                let sent = try bed.hush(alice, ["send", "bob", text], environment: Self.noPassphrase)
                #expect(sent.status == 0, "\(sent)")
                aliceSent.append(text)
                if round == 0 && n == 1 {
                    // In the middle of the push traffic: no clean shutdown at all.
                    daemon.signal(SIGKILL)
                    _ = daemon.finish(timeout: 20)
                    daemon = try Self.startDaemon(bed, alice)
                }
            }
        }
        // Everything bob sent is in alice's history once, after one more sync through the daemon.
        let synced = try bed.hush(alice, ["sync", "--json"], environment: Self.noPassphrase)
        #expect(synced.status == 0, "\(synced)")

        // Every event since before the bursts, replayed after the kill: each message of bob's exactly once.
        let lastSeq = try Self.latestSeq(bed, alice)
        let replay = try DaemonConnection.connect(socket: alice.home + "/daemon.sock")
        try replay.send(line: #"{"jsonrpc":"2.0","id":1,"method":"events.subscribe","params":{"after":\#(firstSeq)}}"#)
        var received: [String: Int] = [:]
        var seen: UInt64 = firstSeq
        while seen < lastSeq, let message = try replay.receive() {
            guard message["method"]?.stringValue == "event", let event = message["params"] else { continue }
            if let seq = event["seq"]?.integerValue {
                #expect(UInt64(seq) > seen, "seq \(seq) after \(seen): out of order or repeated")
                seen = UInt64(seq)
            }
            if event["event"]?.stringValue == "message", event["direction"]?.stringValue == "in", let body = event["body"]?.stringValue {
                received[body, default: 0] += 1
            }
        }
        replay.close()
        for text in bobSent.dropFirst() { #expect(received[text] == 1, "\(text) replayed \(received[text] ?? 0) times") }

        daemon.signal(SIGTERM)
        #expect(daemon.finish(timeout: 30).status == 0)
        let history = try bed.history(alice, with: "bob")
        for text in bobSent { #expect(history.count(text) == 1, "\(text) stored \(history.count(text)) times") }
        for text in aliceSent { #expect(history.count(text) == 1, "\(text) stored \(history.count(text)) times") }
        try bed.sync(bob)
        let bobs = try bed.history(bob, with: "alice")
        for text in aliceSent { #expect(bobs.count(text) == 1, "bob has \(text) \(bobs.count(text)) times") }
    }
}

extension DaemonTests {
    /// The latest event seq of `user`'s account, through its daemon.
    static func latestSeq(_ bed: Testbed, _ user: User) throws -> UInt64 {
        let result = try bed.hush(user, ["rpc", "events.cursor", #"{"subscriber":"tests"}"#], environment: noPassphrase)
        try #require(result.status == 0, "\(result)")
        let object = try result.json()
        return try #require((object["latest"] as? NSNumber)?.uint64Value, "\(result)")
    }
}

/// Lines to a daemon's socket, each answered before the next is sent.
enum RawSocket {
    static func exchange(path: String, lines: [String], expecting count: Int) throws -> [Any] {
        let connection = try DaemonConnection.connect(socket: path)
        var answers: [Any] = []
        for line in lines {
            try connection.send(line: line)
            guard let answer = try connection.receiveLine() else {
                throw HarnessError("the daemon closed the connection after \(answers.count) answers")
            }
            answers.append(try JSONSerialization.jsonObject(with: Data(answer.utf8)))
        }
        guard answers.count == count else { throw HarnessError("expected \(count) answers, got \(answers.count)") }
        return answers
    }
}
