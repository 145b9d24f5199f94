import Foundation
import Glibc
import HushSubprocess
import Testing

/// A named pipe (FIFO) given where a file is read: opening one for reading
/// blocks until something writes to it, so it must be refused unread, at
/// once, with words that say what to do. In the daemon a blocked open held
/// one of Swift's few concurrency threads for good: two of them froze it.
@Suite struct NamedPipeInputTests {
    /// A FIFO under the testbed's root.
    static func makePipe(_ bed: Testbed, _ name: String) throws -> String {
        let path = bed.root + "/" + name
        try #require(mkfifo(path, 0o600) == 0, "mkfifo: \(String(cString: strerror(errno)))")
        return path
    }

    static func expectRefusedAtOnce(_ result: CommandResult, _ started: Date, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(result.status != 0 && !result.crashed, "\(result)", sourceLocation: sourceLocation)
        #expect(result.stderr.contains("is a named pipe (FIFO), not a regular file"), "\(result)", sourceLocation: sourceLocation)
        #expect(result.stderr.contains("give the path of a regular file"), "\(result)", sourceLocation: sourceLocation)
        #expect(Date().timeIntervalSince(started) < 15, "refused only after \(Date().timeIntervalSince(started)) s", sourceLocation: sourceLocation)
    }

    @Test func aPipeSentThroughTheDaemonIsRefusedAndTheDaemonKeepsAnswering() throws {
        let bed = try Testbed("fifo-daemon")
        let alice = try bed.newUser("alice"), bob = try bed.newUser("bob")
        try bed.addContact(alice, bob)
        let pipe = try Self.makePipe(bed, "pipe")
        let daemon = try DaemonTests.startDaemon(bed, alice)

        // Two at once, as two blocked opens were enough to freeze the daemon.
        let started = Date()
        let senders = try (0..<2).map { _ in
            try ChildProcess(["send", "bob", "--file", pipe], environment: bed.environment(for: alice, overrides: DaemonTests.noPassphrase))
        }
        for sender in senders { Self.expectRefusedAtOnce(sender.finish(timeout: 30), started) }

        let whoami = try bed.hush(alice, ["whoami", "--json"], environment: DaemonTests.noPassphrase, timeout: 20)
        #expect(whoami.status == 0 && (try? whoami.json()["address"] as? String) == alice.address, "\(whoami)")
        // Nothing was stored for the refused file.
        let attachments = try bed.hush(alice, ["attachments", "--json"], environment: DaemonTests.noPassphrase, timeout: 20)
        #expect(attachments.status == 0 && !attachments.stdout.contains("pipe"), "\(attachments)")

        let stop = try bed.hush(alice, ["daemon", "stop"], environment: DaemonTests.noPassphrase, timeout: 20)
        #expect(stop.status == 0, "\(stop)")
        let ended = daemon.finish(timeout: 20)
        #expect(ended.status == 0 && !ended.crashed, "\(ended)")
    }

    /// Without a daemon: the file to send and the backup archive go through the
    /// same check. A secret handed over by a pipe (`--passphrase-file <(pass show
    /// hush)`) is read, as the command's own process may wait for its writer.
    @Test func aPipeGivenInProcessIsRefusedWherever() throws {
        let bed = try Testbed("fifo-local")
        let alice = try bed.newUser("alice"), bob = try bed.newUser("bob")
        try bed.addContact(alice, bob)
        let pipe = try Self.makePipe(bed, "pipe")
        let key = try #require(try bed.succeed(alice, ["backup", "key", "--json"]).json()["recoveryKey"] as? String)

        var started = Date()
        Self.expectRefusedAtOnce(try bed.hush(alice, ["send", "bob", "--file", pipe], timeout: 30), started)
        let writer = try Subprocess("/bin/sh", ["-c", "printf '%s\\n' \"$0\" > \"$1\"", HushEnvironment.passphrase, pipe], output: .nullDevice)
        let unlocked = try bed.hush(alice, ["whoami", "--json", "--passphrase-file", pipe], environment: ["HUSH_PASSPHRASE": nil], timeout: 30)
        writer.waitForExit()
        #expect(unlocked.status == 0 && (try? unlocked.json()["address"] as? String) == alice.address, "\(unlocked)")
        started = Date()
        Self.expectRefusedAtOnce(try bed.hush(nil, ["backup", "verify", pipe], environment: ["HUSH_RECOVERY_KEY": key], timeout: 30), started)

        // A regular file still sends.
        let path = bed.root + "/note.txt"
        try Data("a regular file".utf8).write(to: URL(fileURLWithPath: path))
        try bed.succeed(alice, ["send", "bob", "--file", path])
    }
}
