import Foundation
import HushSubprocess
import Testing
import HushCrypto
import HushDatabase
import HushStore

/// Kills a process that writes in a loop of transactions (SIGKILL, no
/// chance to clean up) and checks that the database reopens intact with
/// every row the writer reported committed.
@Suite struct CrashConsistencyTests {
    static var writer: URL {
        // The helper is built next to the test bundle.
        let bundle = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        var directory = bundle.deletingLastPathComponent()
        while !FileManager.default.isExecutableFile(atPath: directory.appendingPathComponent("HushCrashWriter").path),
              directory.path != "/" {
            directory = directory.deletingLastPathComponent()
        }
        return directory.appendingPathComponent("HushCrashWriter")
    }

    @Test(arguments: [1, 2, 3])
    func killedWriterLeavesAConsistentDatabase(round: Int) throws {
        let fixture = try StoreFixture(seed: "crash-\(round)")
        let process = try Subprocess(Self.writer.path, [fixture.path], environment: ["HUSH_CRASH_WRITER_KEY": Hex.encode(fixture.key.copyBytes())],
                                     output: .pipe, errors: .standardError)

        // Read progress lines until the writer has committed a few hundred
        // rows (more each round), then kill it mid-transaction.
        var reported = 0
        var buffer = Data()
        let target = 200 * round
        while reported < target {
            let chunk = process.readOutput()
            if chunk.isEmpty { break }
            buffer.append(contentsOf: chunk)
            // Only complete lines count: the last one may still be arriving.
            let text = String(decoding: buffer, as: UTF8.self)
            let complete = text.hasSuffix("\n") ? text : String(text[..<(text.lastIndex(of: "\n") ?? text.startIndex)])
            if let last = complete.split(separator: "\n").last, let value = Int(last) { reported = value }
        }
        process.send(SIGKILL)
        #expect(process.waitForExit() == .signalled(SIGKILL))
        #expect(reported >= target)

        let store = try MessageStore(path: fixture.path, key: fixture.key)
        #expect(try store.database.integrityCheck() == ["ok"])
        let count = try store.database.queryFirst("SELECT count(*) FROM messages") { try $0.get(0, as: Int.self) } ?? 0
        #expect(count >= reported)
        #expect(count % 20 == 0, "a partial transaction survived")
        // Every committed row is intact and searchable.
        let bodies = try store.database.query("SELECT server_id, body FROM messages WHERE server_id <= ? ORDER BY server_id", [reported]) {
            (try $0.get(0, as: Int.self), try $0.get(1, as: String.self))
        }
        #expect(bodies.count == reported)
        #expect(bodies.allSatisfy { $0.1 == "row \($0.0) " + String(repeating: "x", count: $0.0 % 300) })
        #expect(try store.database.queryFirst("SELECT count(*) FROM messages_fts WHERE messages_fts MATCH 'row'") { try $0.get(0, as: Int.self) } == count)
        #expect(try store.conversations.list().first?.unreadCount == count)
    }
}
