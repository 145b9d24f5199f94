import Foundation
import HushCrypto
@testable import HushMessenger
import HushProtocol
import HushStore
import HushTesting
import Testing

/// A read of our own database that fails (locked past the busy timeout,
/// damaged, a table another version renamed) says nothing about the data:
/// the messenger must neither give a message up nor delete files because of
/// it. The failure is injected from a second connection, which renames the
/// table the read needs; renamed back, everything goes on.
@Suite struct UnreadableDatabaseTests {
    private static func rename(_ table: String, to other: String, in participant: Participant) throws {
        let side = try MessageStore(path: participant.databasePath, key: participant.databaseKey)
        try side.database.execute("ALTER TABLE \(table) RENAME TO \(other)")
    }

    /// Alice's group message waits at the relay's door (deposits fail), and
    /// then her database cannot say who the message still goes to. It was
    /// taken for a message to a removed contact and given up for good.
    @Test func aGroupMessageWaitsForItsRecipientsInsteadOfFailing() async throws {
        let relay = InMemoryRelay()
        let alice = try Participant("alice", relay: relay), bob = try Participant("bob", relay: relay),
            carol = try Participant("carol", relay: relay)
        for person in [alice, bob, carol] { try await person.messenger.register() }
        for person in [bob, carol] {
            try await alice.messenger.addContact(name: person.name, address: person.address)
            try await person.messenger.addContact(name: "alice", address: alice.address)
        }
        func syncAll() async throws {
            for _ in 0..<3 { for person in [alice, bob, carol] { _ = try await person.messenger.sync() } }
        }
        try await syncAll()
        try await alice.messenger.createGroup(name: "team", members: ["bob", "carol"])
        try await syncAll()

        relay.state.withLock { $0.depositFailures = Array(repeating: .unavailable(reason: "relay restarting"), count: 2) }
        let sent = try await alice.messenger.send(text: "while the relay restarts", to: "team")
        #expect(sent.status == .pending)

        try Self.rename("outbox_recipients", to: "outbox_recipients_away", in: alice)
        alice.clock.advance(milliseconds: 60_000)
        let report = await alice.messenger.flushOutbox()
        #expect(report.failed == 0 && report.retrying >= 1, "\(report)")
        #expect(try await alice.messenger.outbox().allSatisfy { $0.status == .pending })

        try Self.rename("outbox_recipients_away", to: "outbox_recipients", in: alice)
        for _ in 0..<5 where try await !alice.messenger.outbox().isEmpty {
            alice.clock.advance(milliseconds: 60_000)
            _ = await alice.messenger.flushOutbox()
        }
        try await syncAll()
        #expect(try await alice.messenger.history(with: "team").first?.status != .failed)
        #expect(try await bob.messenger.history(with: "team").map(\.body) == ["while the relay restarts"])
        #expect(try await carol.messenger.history(with: "team").map(\.body) == ["while the relay restarts"])
    }

    /// A file whose message could not be written (here: the attachments
    /// table cannot be read or written) must not take the files of the
    /// other attachments with it: the sweep after the failure read "no
    /// attachments" and deleted every file, so an upload still waiting
    /// failed for want of its encrypted copy.
    @Test func aFileThatCannotBeStoredLeavesTheOtherAttachmentsFiles() async throws {
        let relay = InMemoryRelay()
        let (alice, bob) = try await relay.pair()
        let first = alice.directory.path("first.txt"), second = alice.directory.path("second.txt")
        try Data(repeating: 1, count: 100_000).write(to: URL(fileURLWithPath: first))
        try Data(repeating: 2, count: 100_000).write(to: URL(fileURLWithPath: second))
        relay.state.withLock { $0.uploadFailures = [.unavailable(reason: "relay restarting")] }
        let (waiting, _) = try await alice.messenger.sendFile(at: first, to: "bob")
        #expect(waiting.status == .pending)

        try Self.rename("attachments", to: "attachments_away", in: alice)
        await #expect(throws: (any Error).self) { _ = try await alice.messenger.sendFile(at: second, to: "bob") }
        try Self.rename("attachments_away", to: "attachments", in: alice)
        let left = try FileManager.default.contentsOfDirectory(atPath: alice.directory.path("attachments"))
        #expect(!left.contains { $0.hasPrefix(".sealing-") }, "the failed send's own encrypted copy is gone: \(left)")

        alice.clock.advance(milliseconds: 60_000)
        _ = await alice.messenger.flushOutbox()
        #expect(try await alice.messenger.attachmentList().map(\.attachment.state) == [.uploaded])
        #expect(try await alice.messenger.history(with: "bob").first { $0.id == waiting.id }?.status == .sent)
        _ = try await bob.messenger.sync()
        #expect(try await bob.messenger.messageRequests().first?.messageCount == 1)
    }

    /// A sealing file belongs to the process that writes it: another
    /// process's sweep (after its own send failed, or a removed contact)
    /// leaves it alone while it is being written or its process lives, and
    /// removes it once it sat a minute with its process gone (or the nameless
    /// ones of older versions), or an hour whatever its process id says.
    @Test func aSweepLeavesTheSealingFileOfALiveProcess() throws {
        let directory = try TemporaryDirectory(label: "sweep")
        let files = AttachmentFiles(directory: directory.path)
        try files.ensureDirectory()
        let me = getpid(), gone: Int32 = 999_999_999
        let names = ["live": ".sealing-\(me)-00112233", "justWritten": ".sealing-\(gone)-01", "dead": ".sealing-\(gone)-02",
                     "legacy": ".sealing-8899aabbccddeeff", "ancient": ".sealing-\(me)-03", "kept": "7.blob", "orphan": "8.blob"]
        let ages = ["dead": 120.0, "legacy": 120.0, "ancient": 7_200.0, "live": 120.0]
        for (label, name) in names {
            let path = directory.path + "/" + name
            FileManager.default.createFile(atPath: path, contents: Data([1]))
            if let age = ages[label] {
                try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -age)], ofItemAtPath: path)
            }
        }
        files.sweep(keeping: [7], isAlive: { $0 == me })
        let left = Set(try FileManager.default.contentsOfDirectory(atPath: directory.path))
        #expect(left == Set(["live", "justWritten", "kept"].map { names[$0]! }), "\(left.sorted())")
        #expect(AttachmentFiles.sealingProcess(".sealing-\(me)-00ff") == me)
    }
}
