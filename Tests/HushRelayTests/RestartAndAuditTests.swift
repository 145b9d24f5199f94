import Foundation
import HummingbirdTesting
import HushAudit
import HushCrypto
import HushRelay
import HushProtocol
import HushRelayClient
import Logging
import HushTesting
import Testing

/// The embedded SQLCipher relay across a restart, and what its directory reveals.
@Suite struct RestartAndAuditTests {
    static func embedded(_ directory: String) throws -> RelayServer {
        var configuration = RelayConfiguration()
        configuration.port = 0
        configuration.dataDirectory = directory
        var logger = Logger(label: "test.relay")
        logger.logLevel = .warning
        return try RelayServer.embedded(configuration: configuration, logger: logger)
    }

    @Test func restartKeepsUnacknowledgedAndForgetsAcknowledged() async throws {
        let temporary = try TemporaryDirectory()
        let dataDirectory = temporary.path + "/relay"
        let alice = try TestUser(seed: "alice")
        let canary = "CANARY-relay-restart-7f3a"
        let ids: [UInt64] = try await Self.embedded(dataDirectory).makeApplication().test(.live) { client in
            let relayClient = RelayClient(baseURL: "http://127.0.0.1:\(client.port!)")
            try await relayClient.register(identity: alice.key, signedPrekey: alice.signedPrekey, lastResortKEMPrekey: alice.lastResortKEM, oneTimePrekeys: [])
            try await relayClient.authenticate(identity: alice.key)
            var ids: [UInt64] = []
            for index in 0..<3 {
                let envelope = sealedSized(Array("\(canary) #\(index)".utf8))
                ids.append(try await relayClient.deposit(recipient: alice.identity, envelope: envelope, requestID: "m\(index)", credential: nil).messageID)
            }
            #expect(try await relayClient.ack(ids: [ids[1]]) == 1)
            return ids
        }
        let keyMode = try FileManager.default.attributesOfItem(atPath: dataDirectory + "/relay.key")[.posixPermissions] as? Int
        #expect(keyMode == 0o600)

        try await Self.embedded(dataDirectory).makeApplication().test(.live) { client in
            let relayClient = RelayClient(baseURL: "http://127.0.0.1:\(client.port!)")
            try await relayClient.authenticate(identity: alice.key)
            let synced = try await relayClient.sync()
            #expect(synced.messages.map(\.messageID) == [ids[0], ids[2]])
            #expect(synced.messages.map { String(decoding: $0.envelope.bytes.prefix { $0 != 0 }, as: UTF8.self) } == ["\(canary) #0", "\(canary) #2"])
            // Ids keep increasing after the restart.
            let next = try await relayClient.deposit(recipient: alice.identity, envelope: sealedSized([1]), requestID: "after-restart", credential: nil)
            #expect(next.messageID > ids[2])
            // A repeat of a request made before the restart answers as before.
            let repeatAfterRestart = try await relayClient.deposit(recipient: alice.identity, envelope: sealedSized(Array("\(canary) #0".utf8)), requestID: "m0", credential: nil)
            #expect(repeatAfterRestart.messageID == ids[0])
            // An account's device directory, which the audit lists by its blinded name only.
            let account = try DirectoryRouteTests.Account("audited")
            let phone = Ed25519.PrivateKey(using: DeterministicRandom(seed: "audited phone"))
            let list = try DeviceList.sign(account: account.identity, counter: 1, createdAt: 1, signer: phone, entries: [
                try DeviceListEntry.linking(phone, to: account.identity.publicKey, name: "phone", addedAt: 1)])
            _ = try await relayClient.publishDirectory(list, writer: account.writer)
        }

        let inventory = try await RelayAudit.inventory(dataDirectory: dataDirectory)
        #expect(inventory.identities.map(\.identity) == [alice.identity])
        #expect(inventory.messages.count == 3)
        #expect(inventory.messages.allSatisfy { $0.mailbox == alice.identity })
        let report = RelayAudit.render(inventory, dataDirectory: dataDirectory)
        #expect(report.contains("Stored envelopes (3)"))
        #expect(inventory.directories.count == 1 && inventory.directories.first?.counter == 1)
        #expect(report.contains("Device directories (1):") && report.contains("1 device directories"))
        #expect(!report.contains(canary))
        // The database is encrypted: the canary is in no file, in no encoding.
        let scan = try CanaryScanner.scan(directory: dataDirectory, canary: canary)
        #expect(scan.filesScanned >= 2)
        #expect(!scan.foundAnywhere, "\(scan.findings.filter(\.found))")
    }
}

@Suite struct CanaryScannerTests {
    @Test func findsEachEncoding() throws {
        let directory = try TemporaryDirectory()
        let canary = "Meet at 9, bring the key"
        let utf16LE = Data(canary.utf16.flatMap { [UInt8($0 & 0xff), UInt8($0 >> 8)] })
        let hex = canary.utf8.map { String(format: "%02X", $0) }.joined()
        let inBase64 = Data(("xy" + canary + "tail").utf8).base64EncodedString()
        try Data(("prefix " + canary).utf8).write(to: URL(fileURLWithPath: directory.path + "/plain.txt"))
        try utf16LE.write(to: URL(fileURLWithPath: directory.path + "/wide.bin"))
        try FileManager.default.createDirectory(atPath: directory.path + "/nested", withIntermediateDirectories: true)
        try Data(("{\"v\":\"\(inBase64)\",\"h\":\"\(hex)\"}").utf8).write(to: URL(fileURLWithPath: directory.path + "/nested/encoded.json"))
        let report = try CanaryScanner.scan(directory: directory.path, canary: canary)
        let found = Dictionary(uniqueKeysWithValues: report.findings.map { ($0.encoding, $0.files) })
        #expect(found[.utf8] == ["plain.txt"])
        #expect(found[.utf16LE] == ["wide.bin"])
        #expect(found[.utf16BE] == [])
        #expect(found[.hex] == ["nested/encoded.json"])
        #expect(found[.base64] == ["nested/encoded.json"])
        #expect(report.filesScanned == 3)
    }

    @Test func reportsNothingForAbsentCanary() throws {
        let directory = try TemporaryDirectory()
        try Data(DeterministicRandom(seed: "noise").bytes(10_000)).write(to: URL(fileURLWithPath: directory.path + "/noise.bin"))
        let report = try CanaryScanner.scan(directory: directory.path, canary: "not here at all")
        #expect(!report.foundAnywhere)
        #expect(CanaryScanner.render(report, canaryLength: 15).contains("not found in any encoding"))
    }
}
