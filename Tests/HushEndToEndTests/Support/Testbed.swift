import Foundation
import HushTesting
import Testing

/// One user of a test: a data directory of their own.
struct User: Sendable {
    let name: String
    let home: String
    /// `hush1…`, from `hush init --json`.
    var address: String = ""
    /// 64 hex digits of the identity key: the relay's name for their mailbox.
    var identityKey: String = ""
}

/// A temporary directory with a real relay process and the homes of the
/// test's users. Every `hush` call is a separate process of the real binary.
final class Testbed: @unchecked Sendable {
    /// Removed after `deinit` has killed the relay that writes into it.
    private let directory: TemporaryDirectory
    let relay: RelayServer

    /// - Parameter relayOptions: further `hush relay serve` options (`--database URL`, say).
    ///
    /// The relay asks first contacts for `testWorkBits` of proof of work unless the options (or a
    /// `--config` file) say otherwise: the clients still compute and send it, but the relay's default
    /// of 16 bits (about 65,000 SHA-256 hashes per first contact) was a tenth of the CPU
    /// the process suites spent. WholeFlowTests keeps the default.
    init(_ label: String = "test", relayLogLevel: String = "error", relayOptions: [String] = []) throws {
        directory = try TemporaryDirectory(label: "e2e-\(label)")
        let chosen = relayOptions.contains("--config") || relayOptions.contains("--first-contact-work-bits")
        relay = try RelayServer(dataDirectory: directory.path("relay"), logLevel: relayLogLevel,
                                options: relayOptions + (chosen ? [] : ["--first-contact-work-bits", String(Self.testWorkBits)]))
    }

    /// The first-contact work the test relays ask for when a test does not choose.
    static let testWorkBits = 8

    var root: String { directory.path }

    deinit {
        relay.kill()
    }

    func environment(for user: User?, overrides: [String: String?] = [:]) -> [String: String] {
        var environment = HushEnvironment.base
        environment["HUSH_PASSPHRASE"] = HushEnvironment.passphrase
        if let user { environment["HUSH_HOME"] = user.home }
        for (key, value) in overrides { environment[key] = value }
        return environment
    }

    /// Runs `hush ARGUMENTS` as `user` (HUSH_HOME) to the end; killed after `timeout` seconds.
    @discardableResult
    func hush(_ user: User?, _ arguments: [String], stdin: String? = nil, environment overrides: [String: String?] = [:],
              timeout: Double = 60, fileSizeLimit: Int? = nil) throws -> CommandResult {
        try ChildProcess(arguments, environment: environment(for: user, overrides: overrides), stdin: stdin,
                         fileSizeLimit: fileSizeLimit).finish(timeout: timeout)
    }

    /// Starts `hush ARGUMENTS` as `user` and returns at once.
    func spawn(_ user: User, _ arguments: [String]) throws -> ChildProcess {
        try ChildProcess(arguments, environment: environment(for: user))
    }

    /// `hush init --name NAME --relay URL --json`: a new identity registered with the relay.
    func newUser(_ name: String, relayURL: String? = nil, sourceLocation: SourceLocation = #_sourceLocation) throws -> User {
        var user = User(name: name, home: root + "/" + name)
        user = try initialise(user, relayURL: relayURL ?? relay.url, sourceLocation: sourceLocation)
        return user
    }

    /// (Re-)initialises `user`'s home; `force` replaces an existing identity.
    func initialise(_ user: User, relayURL: String, force: Bool = false, sourceLocation: SourceLocation = #_sourceLocation) throws -> User {
        let result = try hush(user, ["init", "--name", user.name, "--relay", relayURL, "--json"] + (force ? ["--force"] : []))
        try #require(result.status == 0, "\(result)", sourceLocation: sourceLocation)
        let object = try result.json()
        #expect(object["registered"] as? Bool == true, "\(result)", sourceLocation: sourceLocation)
        var user = user
        user.address = try #require(object["address"] as? String, sourceLocation: sourceLocation)
        user.identityKey = try #require(object["identityKey"] as? String, sourceLocation: sourceLocation)
        return user
    }

    /// Runs a command that must succeed, and returns its result.
    @discardableResult
    func succeed(_ user: User?, _ arguments: [String], stdin: String? = nil, sourceLocation: SourceLocation = #_sourceLocation) throws -> CommandResult {
        let result = try hush(user, arguments, stdin: stdin)
        try #require(result.status == 0 && !result.crashed, "\(result)", sourceLocation: sourceLocation)
        return result
    }

    /// `hush contact add NAME ADDRESS`, which must succeed.
    func addContact(_ user: User, _ contact: User, as name: String? = nil, sourceLocation: SourceLocation = #_sourceLocation) throws {
        try succeed(user, ["contact", "add", name ?? contact.name, contact.address, "--json"], sourceLocation: sourceLocation)
    }

    /// README's first steps: `alice` adds `bob` and writes `first`; `bob` syncs
    /// and names `alice` (she wrote first, so he knows her only by address).
    func meet(_ alice: User, _ bob: User, first: String = "hello", sourceLocation: SourceLocation = #_sourceLocation) throws {
        try addContact(alice, bob, sourceLocation: sourceLocation)
        try send(alice, to: bob.name, first, sourceLocation: sourceLocation)
        try sync(bob, sourceLocation: sourceLocation)
        try addContact(bob, alice, sourceLocation: sourceLocation)
    }

    /// `meet`, then `bob` answers with `answer` and both sync: each has read
    /// the other and holds the other's delivery credential, so neither writes
    /// as a stranger from then on.
    func acquaint(_ alice: User, _ bob: User, answer: String = "hi", sourceLocation: SourceLocation = #_sourceLocation) throws {
        try meet(alice, bob, sourceLocation: sourceLocation)
        try send(bob, to: alice.name, answer, sourceLocation: sourceLocation)
        try sync(alice, sourceLocation: sourceLocation)
        try sync(bob, sourceLocation: sourceLocation)
    }

    /// `hush send NAME TEXT --json`, which must succeed; returns the printed message.
    @discardableResult
    func send(_ user: User, to name: String, _ text: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> [String: Any] {
        try succeed(user, ["send", name, text, "--json"], sourceLocation: sourceLocation).json()
    }

    /// `hush sync --json`, which must succeed; returns its report.
    @discardableResult
    func sync(_ user: User, sourceLocation: SourceLocation = #_sourceLocation) throws -> [String: Any] {
        try succeed(user, ["sync", "--json"], sourceLocation: sourceLocation).json()
    }

    /// The whole stored conversation, oldest first, without marking anything
    /// read: `hush history NAME --json --no-receipts`, page by page (`--before`).
    func history(_ user: User, with name: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> [Message] {
        var all: [Message] = []
        var before: [String] = []
        while true {
            let arguments = ["history", name, "--json", "--no-receipts", "--limit", "500"] + before
            let object = try succeed(user, arguments, sourceLocation: sourceLocation).json()
            let page = try #require(object["messages"] as? [[String: Any]], sourceLocation: sourceLocation).map(Message.init)
            all = page + all
            guard page.count == 500, let oldest = page.first?.raw["id"] as? Int else { return all }
            before = ["--before", String(oldest)]
        }
    }

    /// `hush outbox --json`: the requests not yet accepted by the relay.
    func outbox(_ user: User, sourceLocation: SourceLocation = #_sourceLocation) throws -> [[String: Any]] {
        let object = try succeed(user, ["outbox", "--json"], sourceLocation: sourceLocation).json()
        return try #require(object["outbox"] as? [[String: Any]], sourceLocation: sourceLocation)
    }
}

/// One message of `hush history --json`.
struct Message: CustomStringConvertible {
    let body: String
    let direction: String
    let status: String
    let clientMessageId: String
    let raw: [String: Any]

    init(_ object: [String: Any]) {
        raw = object
        body = object["body"] as? String ?? ""
        direction = object["direction"] as? String ?? ""
        status = object["status"] as? String ?? ""
        clientMessageId = object["clientMessageId"] as? String ?? ""
    }

    var description: String { "\(direction) \(status) \"\(body)\"" }
}

extension Array where Element == Message {
    var incoming: [Message] { filter { $0.direction == "in" } }
    var outgoing: [Message] { filter { $0.direction == "out" } }
    var bodies: [String] { map(\.body) }

    /// How many times a message with `body` is stored.
    func count(_ body: String) -> Int { filter { $0.body == body }.count }
}

extension Testbed {
    /// Starts `hush ARGUMENTS` as `user` in a pseudo-terminal of the given size and returns at once.
    func spawnInTerminal(_ user: User, _ arguments: [String], columns: Int = 80, rows: Int = 24) throws -> ChildProcess {
        var environment = environment(for: user)
        environment["TERM"] = "xterm-256color"
        // A crash prints its backtrace instead of waiting for keys (the runtime's
        // backtracer goes interactive when it finds a terminal).
        environment["SWIFT_BACKTRACE"] = "interactive=no"
        return try ChildProcess(arguments, environment: environment, terminal: (columns, rows))
    }
}

extension Testbed {
    /// `hush listen --json --timeout SECONDS` for `user`: once it is connected
    /// (so what follows can only arrive by the relay's push: listen fetches on
    /// connect and on push, never on a timer), runs `act`, waits for `text`
    /// in its output, and returns how listen ended by itself at its timeout.
    func listen(_ user: User, seconds: Int, while act: () throws -> Void, until text: String,
                sourceLocation: SourceLocation = #_sourceLocation) throws -> CommandResult {
        let listener = try spawn(user, ["listen", "--json", "--timeout", String(seconds)])
        #expect(listener.wait(timeout: 20) { $0.stdout.contains("\"online\":true") }, "listen never connected: \(listener.stderr)",
                sourceLocation: sourceLocation)
        try act()
        #expect(listener.wait(timeout: Double(seconds)) { $0.stdout.contains(text) }, "no message event: \(listener.stdout)",
                sourceLocation: sourceLocation)
        let result = listener.finish(timeout: 20)
        #expect(result.status == 0 && !result.crashed, "\(result)", sourceLocation: sourceLocation)
        return result
    }
}
