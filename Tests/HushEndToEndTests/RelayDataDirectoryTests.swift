import Foundation
import Glibc
import HushTesting
import Testing

/// The relay's data directory refused where running on it would lose or
/// split what it stores (a walkthrough of an operator's first week): a second
/// relay on the same directory, a database gone or emptied beside its key, a
/// key gone beside its database, a directory of another user.
@Suite struct RelayDataDirectoryTests {
    /// `hush relay serve` on `directory` that is expected to exit at once.
    private static func serveRefused(_ directory: String) -> CommandResult {
        do {
            let process = try ChildProcess(["relay", "serve", "--host", "127.0.0.1", "--port", "0", "--data", directory, "--log-level", "error"],
                                           environment: HushEnvironment.base)
            return process.finish(timeout: 30)
        } catch {
            return CommandResult(arguments: [], status: -1, signalled: false, stdout: "", stderr: "\(error)")
        }
    }

    @Test func aSecondRelayOnTheSameDirectoryIsRefused() throws {
        let root = try TemporaryDirectory(label: "relay-lock")
        let relay = try RelayServer(dataDirectory: root.path("relay"))
        defer { relay.kill() }
        let second = Self.serveRefused(root.path("relay"))
        #expect(second.status == 26 && second.stderr.contains("another relay serves"), "\(second)")
        // Once the first stops, the directory is free again.
        relay.stop()
        try relay.start()
    }

    @Test func aDatabaseGoneBesideItsKeyAndAKeyGoneBesideItsDatabaseAreRefused() throws {
        let root = try TemporaryDirectory(label: "relay-incomplete")
        let data = root.path("relay")
        let relay = try RelayServer(dataDirectory: data)
        relay.stop()
        let database = data + "/relay.db", key = data + "/relay.key"
        let original = try Data(contentsOf: URL(fileURLWithPath: database))
        #expect(truncate(database, 0) == 0)
        let emptied = Self.serveRefused(data)
        #expect(emptied.status == 1 && emptied.stderr.contains("relay.db is empty but its key file"), "\(emptied)")
        #expect(unlink(database) == 0)
        let missing = Self.serveRefused(data)
        #expect(missing.status == 1 && missing.stderr.contains("relay.db is missing but its key file"), "\(missing)")

        try original.write(to: URL(fileURLWithPath: database))
        chmod(database, 0o600)
        #expect(rename(key, root.path("relay.key.moved")) == 0)
        let keyless = Self.serveRefused(data)
        #expect(keyless.status == 1 && keyless.stderr.contains("key file") && keyless.stderr.contains("is missing"), "\(keyless)")
        #expect(access(key, F_OK) != 0, "no new key was made beside the database")
        // Both back: the relay starts on what it had.
        #expect(rename(root.path("relay.key.moved"), key) == 0)
        try relay.start()
        relay.stop()
    }

    /// A first start killed between making its key and naming it (the key is
    /// written beside as relay.key.new until the database exists) is not
    /// refused as a lost database: the next start takes that key (a review:
    /// a first start that died there locked the directory out for good).
    @Test func aFirstStartKilledBeforeItsKeyWasNamedIsFinishedByTheNext() throws {
        let root = try TemporaryDirectory(label: "relay-first-start")
        let data = root.path("relay")
        let relay = try RelayServer(dataDirectory: data)
        relay.stop()
        #expect(rename(data + "/relay.key", data + "/relay.key.new") == 0)
        try relay.start()
        relay.stop()
        #expect(access(data + "/relay.key", F_OK) == 0 && access(data + "/relay.key.new", F_OK) != 0)
        // Killed before the database was made at all: a new relay starts there.
        let fresh = root.path("fresh")
        #expect(mkdir(fresh, 0o700) == 0)
        try Data(repeating: 7, count: 32).write(to: URL(fileURLWithPath: fresh + "/relay.key.new"))
        chmod(fresh + "/relay.key.new", 0o600)
        let second = try RelayServer(dataDirectory: fresh)
        second.stop()
    }

    @Test(.enabled(if: geteuid() == 0, "chown to another user needs root (CI runs as root)"))
    func aDirectoryOfAnotherUserIsRefusedWithExit14() throws {
        let root = try TemporaryDirectory(label: "relay-owner")
        let data = root.path("relay")
        #expect(mkdir(data, 0o700) == 0)
        #expect(chown(data, 65534, 65534) == 0)
        let refused = Self.serveRefused(data)
        #expect(refused.status == 14 && refused.stderr.contains("belongs to another user"), "\(refused)")
    }
}
