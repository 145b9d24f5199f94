import ArgumentParser
import Foundation
import HushTerminal

struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Run the whole thing: a relay and two users exchanging encrypted messages, then audit the relay.",
        discussion: """
            Starts a relay on a free loopback port with its data in a temporary directory, creates \
            alice and bob, exchanges messages both ways (showing sent → delivered → read), compares \
            their safety numbers, sends a picture that bob fetches, starts a group with carol, and ends with the relay audit and a canary scan showing the relay \
            holds only ciphertext. Every step is a real `hush` command, printed as you would type it. \
            The demo uses the cheaper "interactive" Argon2id level and a fixed passphrase so that it \
            runs unattended; never do that with a real identity.

            Examples:
              hush demo
              hush demo --keep     # keep the temporary directory to look around
            """)

    @Flag(help: "Keep the temporary directory afterwards and print its path.") var keep = false

    func run() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("hush-demo-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        defer {
            if keep { print("\nThe demo's files are in \(root)") } else { try? FileManager.default.removeItem(atPath: root) }
        }
        let demo = DemoScript(root: root)
        do {
            try demo.run()
        } catch {
            printError("the demo failed: \(error)")
            throw ExitCode.failure
        }
    }
}

/// The demo's steps, each a real `hush` invocation.
struct DemoScript {
    let root: String
    let style = TerminalStyle.standard
    let canary = "pineapple-canary-\(UInt32.random(in: 100_000...999_999))"

    private func environment() -> [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["HUSH_PASSPHRASE"] = "demo passphrase, never use a fixed one for real"
        environment["HUSH_KDF_COST"] = "interactive"
        return environment
    }

    private func section(_ title: String) {
        print("\n" + style.bold("== \(title)"))
    }

    /// Prints the command as a shell line, runs it, prints its output, and fails the demo on a non-zero exit.
    @discardableResult
    private func hush(_ user: String?, _ arguments: [String], expectStatus: Int32 = 0) throws -> String {
        let full = arguments + (user.map { ["--home", "\(root)/\($0)"] } ?? [])
        let shown = arguments.map { $0.contains(" ") ? "\"\($0)\"" : $0 }.joined(separator: " ")
        print(style.dim(user.map { "\($0)$ " } ?? "$ ") + "hush " + shown)
        let result = try HushInvocation(arguments: full, environment: environment()).run()
        let output = result.output.trimmingCharacters(in: .newlines)
        if !output.isEmpty { print(output.split(separator: "\n", omittingEmptySubsequences: false).map { "  " + $0 }.joined(separator: "\n")) }
        guard result.status == expectStatus else {
            throw DemoError("`hush \(shown)` exited with \(result.status): \(result.error.trimmingCharacters(in: .whitespacesAndNewlines))")
        }
        return result.output
    }

    func run() throws {
        section("A relay on loopback, its data in a temporary directory")
        let relayData = "\(root)/relay"
        let relay = try RelayProcess(dataDirectory: relayData)
        defer { relay.stop() }
        print("relay listening on \(relay.url)")

        section("Two people create identities and register with the relay")
        try hush("alice", ["init", "--name", "alice", "--relay", relay.url])
        try hush("bob", ["init", "--name", "bob", "--relay", relay.url])
        let bobAddress = try address(of: "bob")
        let aliceAddress = try address(of: "alice")

        section("Alice adds Bob by his address and writes to him")
        try hush("alice", ["contact", "add", "bob", bobAddress])
        try hush("alice", ["send", "bob", "Hi Bob! The secret word is \(canary)."])

        section("What the relay holds right now: one sealed envelope, no plaintext")
        try hush(nil, ["audit", "relay", "--data", relayData, "--canary", canary])

        section("Bob fetches and decrypts: a message request, answered only once he adds Alice")
        try hush("bob", ["sync"])
        try hush("bob", ["requests"])
        try hush("bob", ["contact", "add", "alice", aliceAddress])
        try hush("alice", ["sync"])
        try hush("alice", ["history", "bob", "--no-receipts"])

        section("Bob reads the message (a read receipt goes back) and answers")
        try hush("bob", ["history", "alice"])
        try hush("bob", ["send", "alice", "Hi Alice, got it. Let's compare safety numbers."])
        try hush("alice", ["sync"])
        try hush("alice", ["history", "bob"])
        try hush("bob", ["sync"])
        try hush("bob", ["history", "alice", "--no-receipts"])
        try hush("alice", ["chats"])

        section("Safety numbers: both sides see the same 60 digits")
        let aliceView = try safetyNumber(of: "alice", with: "bob")
        let bobView = try safetyNumber(of: "bob", with: "alice")
        guard aliceView == bobView else { throw DemoError("the safety numbers differ: \(aliceView) vs \(bobView)") }
        print(style.good("alice and bob see the same number: \(aliceView)"))
        try hush("alice", ["verify", "bob", "--compare", bobView])
        try hush("bob", ["verify", "alice", "--compare", aliceView])

        section("Alice sends Bob a picture; he fetches it when he chooses")
        let picture = "\(root)/sunset.ppm", saved = "\(root)/bob-sunset.ppm"
        try Self.picture(containing: canary).write(to: URL(fileURLWithPath: picture))
        try hush("alice", ["send", "bob", "--file", picture, "a sunset for you"])
        try hush("bob", ["sync"])
        try hush("bob", ["attachments"])
        try hush("bob", ["fetch", "1", "--out", saved])
        guard FileManager.default.contentsEqual(atPath: picture, andPath: saved) else {
            throw DemoError("the file Bob saved differs from the one Alice sent")
        }
        print(style.good("the picture Bob saved is byte for byte the one Alice sent"))

        section("Carol joins, and Alice starts a group with Bob and Carol")
        try hush("carol", ["init", "--name", "carol", "--relay", relay.url])
        try hush("alice", ["contact", "add", "carol", try address(of: "carol")])
        try hush("alice", ["send", "carol", "Hi Carol, joining us for the hike?"])
        try hush("carol", ["sync"])
        try hush("carol", ["contact", "add", "alice", aliceAddress])
        try hush("alice", ["sync"])
        try hush("alice", ["group", "create", "hikers", "bob", "carol"])
        // Bob and Carol never met: the group introduces them, and each sends the other its group key.
        for user in ["bob", "carol", "bob", "carol"] { try hush(user, ["sync"]) }
        try hush("carol", ["group", "info", "hikers"])

        section("Each message is encrypted once and deposited in every member's mailbox in one request")
        try hush("alice", ["send", "hikers", "Summit at noon? The word is still \(canary)."])
        try hush("bob", ["send", "hikers", "Count me in."])
        try hush("carol", ["send", "hikers", "Bringing tea."])
        for user in ["alice", "bob", "carol", "alice"] { try hush(user, ["sync"]) }
        try hush("carol", ["history", "hikers"])
        try hush("alice", ["history", "hikers", "--no-receipts"])

        section("Audit: the relay kept nothing readable, and deleted what was delivered")
        try hush(nil, ["audit", "relay", "--data", relayData, "--canary", canary])
        try hush("alice", ["audit", "local", "--canary", canary])
        section("Done")
        print("Every message, the picture and the group crossed the relay sealed; the relay never saw a sender, a name, a group, a word or a pixel.")
    }

    /// A small picture (a PPM gradient) with the canary in a comment, so the
    /// audit's canary scan covers the attachment's blob too.
    static func picture(containing canary: String) -> Data {
        var bytes = Array("P6\n# \(canary)\n64 64\n255\n".utf8)
        for y in 0..<64 { for x in 0..<64 { bytes += [UInt8(x * 4), UInt8(y * 2), 160] } }
        return Data(bytes)
    }

    private func address(of user: String) throws -> String {
        let result = try HushInvocation(arguments: ["whoami", "--json", "--home", "\(root)/\(user)"], environment: environment()).run()
        guard result.status == 0, let object = try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any],
              let address = object["address"] as? String else {
            throw DemoError("could not read \(user)'s address: \(result.error)")
        }
        print(style.dim("\(user)$ ") + "hush whoami")
        print("  \(address)")
        return address
    }

    private func safetyNumber(of user: String, with contact: String) throws -> String {
        let output = try hush(user, ["verify", contact])
        let digits = output.filter(\.isNumber)
        guard digits.count >= 60 else { throw DemoError("no safety number in: \(output)") }
        return String(digits.suffix(60))
    }
}
