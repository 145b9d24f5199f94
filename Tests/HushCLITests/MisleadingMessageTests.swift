import Foundation
import HushTesting
import Testing

/// Messages that misled (issue 29, item 10), checked with the real binary:
/// each says what is wrong and what to do.
@Suite struct MisleadingMessageTests {
    private let cli = HushCLITests()

    /// `hush sned` and `hush contacts` name the closest commands, by edit distance.
    @Test(arguments: [
        (["sned", "bob", "hi"], "`hush send`"),
        (["contacts"], "`hush contact`"),
        (["group", "lst"], "`hush group list`"),
        (["requets"], "`hush requests`"),
    ])
    func aMistypedCommandGetsDidYouMean(arguments: [String], suggestion: String) throws {
        let result = try cli.hush(arguments, passphrase: nil)
        #expect(result.status == 64, "\(result.stderr)")
        #expect(result.stderr.contains("Did you mean") && result.stderr.contains(suggestion), "\(result.stderr)")
    }

    /// A word nothing is close to is left to the parser's own message.
    @Test func aWordFarFromEveryCommandIsNotGuessedAt() throws {
        let result = try cli.hush(["xylophone"], passphrase: nil)
        #expect(result.status == 64 && !result.stderr.contains("Did you mean"), "\(result.stderr)")
    }

    /// `hush help nosuch` printed the overview and exited 0 (swift-argument-parser's
    /// help command), so a script asking for help on a command that does not
    /// exist could not tell; help on a real command still exits 0.
    @Test func helpOnACommandThatDoesNotExistIsAUsageError() throws {
        let missing = try cli.hush(["help", "nosuch"], passphrase: nil)
        #expect(missing.status == 64 && missing.stderr.contains("`nosuch` is not a `hush` command"), "\(missing.stderr)")
        let nested = try cli.hush(["help", "group", "lst"], passphrase: nil)
        #expect(nested.status == 64 && nested.stderr.contains("`hush group list`"), "\(nested.stderr)")
        let real = try cli.hush(["help", "group", "create"], passphrase: nil)
        #expect(real.status == 0 && real.stdout.contains("USAGE: hush group create"), "\(real.stderr)")
    }

    /// `hush delete bob -1` said only "Missing expected argument '<id>'": the
    /// parser takes a negative number for an option. The note says so, and how
    /// to pass a value that starts with a dash.
    @Test func aNegativeNumberWhereAValueBelongsIsNamed() throws {
        let result = try cli.hush(["delete", "bob", "-1"], passphrase: nil)
        #expect(result.status == 64, "\(result.stderr)")
        #expect(result.stderr.contains("`-1` was read as an option, not as a value") && result.stderr.contains("after `--`"), "\(result.stderr)")
        // An option's negative value is parsed, and its own range check speaks.
        let option = try cli.hush(["history", "bob", "--limit", "-3"], passphrase: nil)
        #expect(option.status == 64 && option.stderr.contains("--limit must be between 1 and 500") && !option.stderr.contains("read as an option"),
                "\(option.stderr)")
        // One the parser took for an option's missing value (it said only "Missing value for '--port <port>'").
        let port = try cli.hush(["relay", "serve", "--port", "-1"], passphrase: nil)
        #expect(port.status == 64 && port.stderr.contains("`-1` was read as an option"), "\(port.stderr)")
    }

    /// A data directory open to others (mode 755) names the directory and
    /// the command that fixes it, for the client and for the relay; never
    /// "internal failure".
    @Test func aLooseDataDirectoryNamesTheFix() throws {
        let home = try HushCLITests.Home()
        #expect(try cli.hush(["init", "--home", home.path]).status == 0)
        chmod(home.path, 0o755)
        let client = try cli.hush(["whoami", "--home", home.path])
        #expect(client.status == 14 && client.stderr.contains("chmod 700 \(home.path)"), "\(client.stderr)")

        let relayData = home.root.path("relay-data")
        try FileManager.default.createDirectory(atPath: relayData, withIntermediateDirectories: true)
        chmod(relayData, 0o755)
        let relay = try cli.hush(["relay", "serve", "--port", "0", "--data", relayData], passphrase: nil)
        #expect(relay.status != 0, "\(relay.stdout)")
        #expect(relay.stderr.contains("chmod 700 \(relayData)") && !relay.stderr.contains("internal failure"), "\(relay.stderr)")
    }

    /// `relay config --check` reads the HUSH_RELAY_* variables over the file, as `relay serve` does.
    @Test func relayConfigCheckReadsTheEnvironment() throws {
        let home = try HushCLITests.Home()
        let file = home.root.path("relay.yaml")
        try "port: 8080\n".write(toFile: file, atomically: true, encoding: .utf8)
        let fine = try cli.hush(["relay", "config", "--check", file], passphrase: nil, extra: ["HUSH_RELAY_PORT": "9090"])
        #expect(fine.status == 0 && fine.stdout.contains("HUSH_RELAY_PORT"), "\(fine.stdout)\(fine.stderr)")
        let bad = try cli.hush(["relay", "config", "--check", file], passphrase: nil, extra: ["HUSH_RELAY_PORT": "eighty"])
        #expect(bad.status == 64 && bad.stderr.contains("HUSH_RELAY_PORT"), "\(bad.stdout)\(bad.stderr)")
        // A variable that names no setting is refused, as an unknown key in the file is (it was
        // ignored: the operator believed the limit set, a walkthrough).
        let misspelt = try cli.hush(["relay", "config", "--check", file], passphrase: nil, extra: ["HUSH_RELAY_IDLE_TIMEOUT": "5"])
        #expect(misspelt.status == 64 && misspelt.stderr.contains("$HUSH_RELAY_IDLE_TIMEOUT"), "\(misspelt.stdout)\(misspelt.stderr)")
        // What serving refuses, the check refuses too (it called valid a file whose relay would not start).
        for (body, said) in [("host: \"0.0.0.0\"\n", "listens on every address"),
                             ("port: 18306\nmetrics:\n  listen: \"127.0.0.1:18306\"\n", "takes the relay's own port"),
                             ("tls:\n  certificate: /nonexistent.pem\n  key: /nonexistent.key\n", "cannot be read")] {
            try body.write(toFile: file, atomically: true, encoding: .utf8)
            let refused = try cli.hush(["relay", "config", "--check", file], passphrase: nil)
            #expect(refused.status == 64 && refused.stderr.contains(said), "\(body): \(refused.stdout)\(refused.stderr)")
        }
    }

    /// A home reached through a symbolic link is the directory it links to:
    /// the link's own mode (777) drew "open to other users: chmod 600 LINK",
    /// which would have made the directory unusable (a walkthrough). An empty
    /// `--home` (an unset variable) is refused, not read as `~/.hush`.
    @Test func aHomeReachedThroughALinkIsItsTargetAndAnEmptyOneIsRefused() throws {
        let home = try HushCLITests.Home()
        #expect(try cli.hush(["init", "--home", home.path]).status == 0)
        let link = home.root.path("link-to-home")
        #expect(symlink(home.path, link) == 0)
        let through = try cli.hush(["whoami", "--home", link])
        #expect(through.status == 0 && through.stdout.contains("Address:"), "\(through.stderr)")
        let empty = try cli.hush(["whoami", "--home", ""])
        #expect(empty.status != 0 && empty.stderr.contains("--home is empty"), "\(empty.stderr)")
    }

    /// A port another program holds: the relay says which address and what to
    /// do, not "bind(descriptor:ptr:bytes:): Address already in use) (errno: 98)".
    @Test func aRelayOnAPortInUseSaysSoWithTheAddress() throws {
        let home = try HushCLITests.Home()
        let holder = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(holder) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(holder, $0, length) == 0 && listen(holder, 1) == 0
                && getsockname(holder, $0, &length) == 0 }
        }
        try #require(bound)
        let port = Int(UInt16(bigEndian: address.sin_port))
        let relay = try cli.hush(["relay", "serve", "--port", String(port), "--data", home.root.path("relay")], passphrase: nil)
        #expect(relay.status == 1 && relay.stderr.contains("cannot listen on 127.0.0.1:\(port)") && relay.stderr.contains("already in use"),
                "\(relay.stderr)")
    }

    /// A relay that cannot be reached is named, with what was tried and why
    /// ("connection refused"), not a type name such as "(IOError)".
    @Test func anUnreachableRelayIsNamedWithTheReason() throws {
        let home = try HushCLITests.Home()
        // Port 1 on loopback: nothing listens, so the connection is refused at once.
        let result = try cli.hush(["init", "--home", home.path, "--relay", "http://127.0.0.1:1"])
        let said = result.stdout + result.stderr
        #expect(said.contains("http://127.0.0.1:1/") && said.lowercased().contains("connection refused"), "\(said)")
        #expect(!said.contains("IOError") && !said.contains("HTTPClientError"), "\(said)")
    }
}
