import Foundation
import Testing
import HushCrypto
import HushDatabase
import HushKeystore
import HushStore
import HushTesting

@Suite struct StoreEncryptionAtRestTests {
    let canary = "canary-51e0-plaintext-never-on-disk"

    @Test func canaryAppearsInNoFileOfTheDataDirectory() throws {
        let root = try TemporaryDirectory(label: "canary")
        defer { withExtendedLifetime(root) {} }
        let home = DataDirectory(path: root.path("home"))
        let contents = KeystoreContents.generate(createdAt: 1, using: DeterministicRandom(seed: "canary"))
        try KeystoreFile(directory: home).create(contents, passphrase: SecureBytes(copying: Array("pw".utf8)), cost: .insecureTestOnly)
        let store = try MessageStore(path: home.databasePath, key: contents.databaseKey)
        let chat = try store.conversations.create(title: "canary chat", at: 1)
        try store.write { store in
            for i in 0..<200 {
                try store.messages.insert(NewMessage(conversationId: chat, serverId: Int64(i), clientMessageId: "c\(i)",
                                                     direction: .incoming, sender: "peer", body: "\(canary) number \(i)",
                                                     status: .delivered, createdAt: Int64(i)))
            }
        }
        try store.outbox.enqueue(requestId: "r", messageId: nil, conversationId: chat, sealedPayload: [1, 2], at: 1)
        #expect(try store.messages.search(canary).count == 20)   // the index holds it, encrypted

        let files = try FileManager.default.contentsOfDirectory(atPath: home.path)
        #expect(files.contains("messages.db") && files.contains("messages.db-wal") && files.contains("keystore"))
        for name in files {
            let bytes = try Data(contentsOf: URL(fileURLWithPath: home.file(name)))
            #expect(bytes.range(of: Data(canary.utf8)) == nil, "canary found in \(name)")
            #expect(bytes.range(of: Data("canary chat".utf8)) == nil, "title found in \(name)")
        }
        let header = try Data(contentsOf: URL(fileURLWithPath: home.databasePath)).prefix(16)
        #expect(!header.starts(with: Array("SQLite format 3".utf8)))
        // Every file the store created is owner-only, and the directory passes its own check.
        try home.checkPermissions()
    }

    @Test func sqlcipherCommandLineCannotReadTheStoreWithoutTheKey() throws {
        let fixture = try StoreFixture()
        let chat = try fixture.conversation("cli")
        try fixture.incoming(chat, serverId: 1, body: canary, at: 1)
        try fixture.store.database.checkpoint()
        let (status, text) = try CommandLineTool.run("/usr/bin/sqlcipher", [fixture.path, "SELECT body FROM messages;"])
        #expect(status != 0)
        #expect(!text.contains(canary))
        #expect(text.contains("not a database") || text.contains("encrypted"))
    }

    @Test func wrongKeyFailsClearly() throws {
        let fixture = try StoreFixture()
        _ = try fixture.conversation("k")
        #expect { _ = try MessageStore(path: fixture.path, key: SecureBytes(randomCount: 32)) } throws: { error in
            (error as? DatabaseError)?.kind == .wrongKeyOrNotADatabase
                && String(describing: error).contains("key is wrong")
        }
    }

    @Test func doctorReportsIntegrityAndTheCipherVersion() throws {
        let fixture = try StoreFixture()
        let report = try fixture.store.doctor()
        #expect(report.integrity == .ok && report.healthy)
        #expect(report.cipherVersion.hasPrefix("3.") ? report.cipherIntegrity != .ok : report.cipherIntegrity == .ok)
        #expect(report.schemaVersion == Schema.latestVersion && report.pageSize == 4096)
    }
}
