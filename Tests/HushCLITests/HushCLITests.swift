import Foundation
import HushTesting
import Testing

/// Runs the built `hush` binary as a process against a temporary --home.
@Suite struct HushCLITests {
    struct Result {
        let status: Int32
        let stdout: String
        let stderr: String
    }

    static var binary: URL {
        URL(fileURLWithPath: (try? BuiltBinary.hush) ?? "hush-binary-not-found")
    }

    final class Home {
        let root: TemporaryDirectory
        var path: String { root.path("home") }
        init() throws { root = try TemporaryDirectory(label: "cli-test") }
    }

    func hush(_ arguments: [String], passphrase: String? = "test passphrase", extra: [String: String] = [:]) throws -> Result {
        // Argon2id at the floor a debug build allows: each process unlocks a keystore.
        var environment = ["PATH": "/usr/bin:/bin", "HUSH_KDF_COST": "insecure-test-floor", "NO_COLOR": "1"]
        if let passphrase { environment["HUSH_PASSPHRASE"] = passphrase }
        environment.merge(extra) { $1 }
        // posix_spawn, not Foundation's Process (see CommandLineTool): its run() crashed a full test run here.
        let result = try CommandLineTool.spawn(Self.binary.path, arguments, environment: environment)
        return Result(status: result.status, stdout: result.stdout, stderr: result.stderr)
    }

    @Test func versionNamesTheReleaseTheProtocolAndTheLibrariesLoaded() throws {
        let result = try hush(["--version"], passphrase: nil)
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 4, "\(result.stdout)")
        #expect(lines.first?.hasPrefix("hush ") == true)
        #expect(lines.contains { $0.hasPrefix("protocol") && $0.contains(" 1 ") })
        // Version numbers as the libraries report them: digits and dots.
        for library in ["libsodium", "SQLCipher"] {
            let line = try #require(lines.first { $0.hasPrefix(library) }, "\(result.stdout)")
            let version = line.dropFirst(library.count).trimmingCharacters(in: .whitespaces).prefix { $0 != " " }
            #expect(!version.isEmpty && version.allSatisfy { $0.isNumber || $0 == "." } && version.contains("."), "\(line)")
        }
    }

    @Test func initCreatesAnEncryptedHomeAndASecondInitIsRefused() throws {
        let home = try Home()
        let first = try hush(["init", "--home", home.path, "--name", "alice", "--json"])
        #expect(first.status == 0, "\(first.stderr)")
        let object = try JSONSerialization.jsonObject(with: Data(first.stdout.utf8)) as? [String: Any]
        let identity = try #require(object?["identityKey"] as? String)
        #expect(identity.count == 64)
        // Issue 19: `--json` output must not escape slashes (`text\/plain`, `\/home\/...`).
        #expect(first.stdout.contains("/") && !first.stdout.contains("\\/"), "\(first.stdout)")

        let files = try FileManager.default.contentsOfDirectory(atPath: home.path).sorted()
        #expect(files.contains("keystore") && files.contains("messages.db"))
        let database = try Data(contentsOf: URL(fileURLWithPath: home.path + "/messages.db"))
        #expect(!database.starts(with: Array("SQLite format 3".utf8)))
        var info = stat()
        #expect(stat(home.path, &info) == 0 && info.st_mode & 0o777 == 0o700)
        for name in files { #expect(stat(home.path + "/" + name, &info) == 0 && info.st_mode & 0o077 == 0) }

        let second = try hush(["init", "--home", home.path])
        #expect(second.status == 15)
        #expect(second.stderr.contains("--force"))
        let doctor = try hush(["doctor", "--home", home.path, "--json"])
        #expect(doctor.status == 0, "\(doctor.stderr)")
        #expect(doctor.stdout.contains(identity))

        let forced = try hush(["init", "--home", home.path, "--force", "--json"])
        #expect(forced.status == 0)
        #expect(!forced.stdout.contains(identity))
    }

    @Test func wrongPassphraseMissingIdentityAndBadPermissionsHaveDistinctCodes() throws {
        let home = try Home()
        let missing = try hush(["doctor", "--home", home.path])
        #expect(missing.status == 10 && missing.stderr.contains("hush init"))
        #expect(try hush(["init", "--home", home.path]).status == 0)
        let wrong = try hush(["doctor", "--home", home.path], passphrase: "not it")
        #expect(wrong.status == 11 && wrong.stderr.contains("wrong passphrase"))
        #expect(!wrong.stderr.contains("not it"))
        let none = try hush(["doctor", "--home", home.path], passphrase: nil)
        #expect(none.status == 16)
        // A passphrase file that is missing, or a directory, gives no passphrase either (it exited 1).
        for file in [home.path + "/no-such-file", home.path] {
            let unreadable = try hush(["doctor", "--home", home.path, "--passphrase-file", file], passphrase: nil)
            #expect(unreadable.status == 16 && unreadable.stderr.contains("no passphrase"), "\(file): \(unreadable)")
        }

        chmod(home.path + "/keystore", 0o644)
        let loose = try hush(["doctor", "--home", home.path])
        #expect(loose.status == 14 && loose.stderr.contains("chmod"))
        chmod(home.path + "/keystore", 0o600)

        var keystore = try Data(contentsOf: URL(fileURLWithPath: home.path + "/keystore"))
        keystore[8] = 9
        try keystore.write(to: URL(fileURLWithPath: home.path + "/keystore"))
        chmod(home.path + "/keystore", 0o600)
        #expect(try hush(["doctor", "--home", home.path]).status == 13)
        keystore[8] = 1   // a current version, but cut short
        keystore.removeLast(keystore.count - 20)
        try keystore.write(to: URL(fileURLWithPath: home.path + "/keystore"))
        chmod(home.path + "/keystore", 0o600)
        #expect(try hush(["doctor", "--home", home.path]).status == 12)
    }

    /// A file given as the home is called a file by `init` and by a command
    /// that opens the account, never "no account yet: run hush init" (which
    /// would fail the same way); the file is left as it was.
    @Test func aFileGivenAsTheHomeIsSaidToBeAFile() throws {
        let home = try Home()
        let file = home.root.path("afile")
        try Data("x".utf8).write(to: URL(fileURLWithPath: file))
        for arguments in [["init", "--home", file, "--name", "z"], ["whoami", "--home", file]] {
            let result = try hush(arguments)
            #expect(result.status != 0 && result.status != 10, "\(arguments): \(result)")
            #expect(result.stderr.contains("\(file): Not a directory") && !result.stderr.contains("hush init"), "\(arguments): \(result.stderr)")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: file)) == Data("x".utf8))
    }

    /// Contact names are printed in every line that mentions the contact: a
    /// control character in one is refused, and a blank or long name says which.
    @Test func contactNamesWithControlCharactersAreRefusedAndBlankOrLongOnesSaySo() throws {
        let home = try Home()
        #expect(try hush(["init", "--home", home.path]).status == 0)
        let address = try #require(try hush(["whoami", "--home", home.path, "--json"]).stdout
            .split(separator: "\"").first { $0.hasPrefix("hush") }.map(String.init))
        let cases: [(String, String)] = [
            ("x\u{1B}[1my", "control character (U+001B)"), ("ev\nil", "control character (U+000A)"),
            ("  ", "blank"), (String(repeating: "n", count: 65), "not 65"),
        ]
        for (name, saying) in cases {
            let result = try hush(["contact", "add", name, address, "--home", home.path])
            #expect(result.status == 64 && result.stderr.contains(saying), "\(name.debugDescription): \(result)")
            #expect(!result.stderr.contains("\u{1B}"))
        }
        let listed = try hush(["contact", "list", "--home", home.path])
        #expect(listed.status == 0 && !listed.stdout.contains("ev"), "\(listed)")
    }

    /// A blank or long group name is a usage error before the account is
    /// opened, as a contact's is (`group create ""` exited 1, `contact add ""`
    /// 64); its length is in bytes (it travels in the group's state).
    @Test func blankOrLongGroupNamesAreUsageErrors() throws {
        let cases: [(String, String)] = [
            ("", "blank"), ("  ", "blank"), (String(repeating: "é", count: 33), "1 to 64 bytes, not 66"),
        ]
        for (name, saying) in cases {
            for arguments in [["group", "create", name, "bob"], ["group", "rename", "friends", name]] {
                let result = try hush(arguments + ["--home", "/nonexistent-hush-home"])
                #expect(result.status == 64 && result.stderr.contains(saying), "\(arguments): \(result)")
            }
        }
    }

    /// A relay URL that cannot be used is a usage error before anything is
    /// created: the identity is not made, and the message says what is wrong.
    @Test(arguments: [
        ("https://127.0.0.1:9#pin=abc", "43 characters of base64url"),
        ("https://127.0.0.1:9#pin=", "43 characters of base64url"),
        ("https://127.0.0.1:9#fingerprint=x", "the part after # must be pin="),
        ("http://127.0.0.1:9#pin=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "needs an https:// relay URL"),
        ("https://127.0.0.1:70000", "port must be 1…65535"),
        ("http://256.1.1.1:8080", "is not an IPv4 address"),
        ("http://10.0.0:8080", "is not an IPv4 address"),
        ("ftp://relay.example.org", "http://"),
    ])
    func aMalformedRelayURLIsRefusedBeforeTheIdentityIsCreated(url: String, reason: String) throws {
        let home = try Home()
        let result = try hush(["init", "--home", home.path, "--relay", url])
        #expect(result.status == 64, "\(result.stderr)")
        #expect(result.stderr.contains(reason) && !result.stderr.contains("HTTP 0"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: home.path + "/keystore"))
        #expect(try hush(["register", "--home", home.path, "--relay", url]).status == 64)
    }

    @Test func passphraseChangeWorksAndTheOldOneStops() throws {
        let home = try Home()
        #expect(try hush(["init", "--home", home.path]).status == 0)
        let passphraseFile = home.root.path("new-pass")
        try "the new one\nignored second line\n".write(toFile: passphraseFile, atomically: true, encoding: .utf8)
        let change = try hush(["passphrase", "change", "--home", home.path, "--new-passphrase-file", passphraseFile])
        #expect(change.status == 0, "\(change.stderr)")
        #expect(try hush(["doctor", "--home", home.path]).status == 11)
        let withFile = try hush(["doctor", "--home", home.path, "--passphrase-file", passphraseFile], passphrase: nil)
        #expect(withFile.status == 0, "\(withFile.stderr)")
        #expect(withFile.stdout.contains("integrity_check         ok"))
        #expect(withFile.stdout.contains("not available") || withFile.stdout.contains("cipher_integrity_check  ok"))
    }

    @Test func everyCommandHasHelpWithExamples() throws {
        let commands: [[String]] = [
            ["init"], ["passphrase", "change"], ["doctor"], ["register"], ["whoami"], ["contact", "add"],
            ["contact", "accept"], ["send"], ["sync"], ["chats"], ["history"], ["chat"], ["listen"], ["outbox"],
            ["retry"], ["search"], ["verify"], ["audit", "local"], ["demo"],
        ]
        for command in commands {
            let help = try hush(command + ["--help"], passphrase: nil)
            #expect(help.status == 0, "\(command)")
            #expect(help.stdout.contains("Examples:"), "\(command) has no examples")
            if command != ["demo"] { #expect(help.stdout.contains("--home"), "\(command) lacks --home") }
        }
        #expect(try hush(["init", "--help"], passphrase: nil).stdout.contains("registers the new identity"))
    }
}
