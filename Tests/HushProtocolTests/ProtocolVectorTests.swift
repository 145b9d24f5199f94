import Foundation
import HushVectors
import Testing

/// Runs every protocol vector file through its suite, as `hush vectors` will.
@Suite struct ProtocolVectorTests {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../Vectors/protocol").standardized

    static func load(_ file: String) throws -> (suite: String, cases: [[String: Any]]) {
        let data = try Data(contentsOf: directory.appendingPathComponent(file + ".json"))
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        return (try #require(object["suite"] as? String), try #require(object["cases"] as? [[String: Any]]))
    }

    @Test(arguments: ["address", "handshake", "first-message", "ratchet", "padding", "sealed-sender", "content",
                      "safety-number", "libsignal-fingerprint", "attachment", "sender-key", "device-list", "link-code",
                      "device-directory", "large-group"])
    func vectorFilePasses(_ file: String) throws {
        let (suiteName, cases) = try Self.load(file)
        let suite = try #require(ProtocolSuites.all.first { $0.name == suiteName })
        #expect(!cases.isEmpty)
        for testCase in cases { try suite.run(testCase) }
    }

    @Test func alteredVectorsFail() throws {
        let (_, fingerprints) = try Self.load("libsignal-fingerprint")
        var wrong = fingerprints[0]
        wrong["displayed"] = "300354477692869396892869876765458257569162576843440918079132"
        #expect(throws: (any Error).self) { try LibsignalFingerprintSuite().run(wrong) }
        let (_, ratchet) = try Self.load("ratchet")
        let altered = try Self.altering(ratchet[0], list: "events", index: 0, field: "message")
        #expect(throws: (any Error).self) { try RatchetSuite().run(altered) }
        let (_, handshake) = try Self.load("handshake")
        var badRoot = handshake[0]
        badRoot["root_key"] = String(repeating: "00", count: 32)
        #expect(throws: (any Error).self) { try HandshakeSuite().run(badRoot) }
        // A group message one bit off, and a reading order that drops a message, both fail.
        let (_, senderKeys) = try Self.load("sender-key")
        let badMessage = try Self.altering(senderKeys[0], list: "messages", index: 1, field: "message")
        #expect(throws: (any Error).self) { try SenderKeySuite().run(badMessage) }
        var badOrder = senderKeys[1]
        badOrder["receive_order"] = [0, 1, 2]
        #expect(throws: (any Error).self) { try SenderKeySuite().run(badOrder) }
        // A device list one bit off, a refusal expected as an acceptance, and one with another reason, all fail.
        let (_, deviceLists) = try Self.load("device-list")
        var badList = deviceLists[0]
        badList["list"] = String((badList["list"] as! String).dropLast()) + ((badList["list"] as! String).hasSuffix("0") ? "1" : "0")
        #expect(throws: (any Error).self) { try DeviceListSuite().run(badList) }
        var steps = try #require(deviceLists[1]["steps"] as? [[String: Any]])
        let refusedAt = try #require(steps.firstIndex { $0["result"] as? String == "unrevoked" })
        steps[refusedAt]["result"] = "accepted"
        var acceptsUnrevoking = deviceLists[1]
        acceptsUnrevoking["steps"] = steps
        #expect(throws: (any Error).self) { try DeviceListSuite().run(acceptsUnrevoking) }
        steps[refusedAt]["result"] = "changedDevice"
        acceptsUnrevoking["steps"] = steps
        #expect(throws: (any Error).self) { try DeviceListSuite().run(acceptsUnrevoking) }
        // The account key said not retired after the list that retires it fails, as does a mark on another device.
        var keeper = try #require(deviceLists.first { ($0["comment"] as? String)?.hasPrefix("the device that keeps the account key") == true })
        var keeperSteps = try #require(keeper["steps"] as? [[String: Any]])
        let retiredAt = try #require(keeperSteps.firstIndex { $0["account_key_retired"] as? Bool == true })
        keeperSteps[retiredAt]["account_key_retired"] = false
        keeper["steps"] = keeperSteps
        #expect(throws: (any Error).self) { try DeviceListSuite().run(keeper) }
        keeperSteps[retiredAt]["account_key_retired"] = true
        keeperSteps[retiredAt]["account_key_device"] = ""
        keeper["steps"] = keeperSteps
        #expect(throws: (any Error).self) { try DeviceListSuite().run(keeper) }
        // A link code whose archive key or refusal reason is off fails.
        let (_, linkCodes) = try Self.load("link-code")
        var badArchiveKey = linkCodes[0]
        badArchiveKey["archive_key"] = String(repeating: "00", count: 32)
        #expect(throws: (any Error).self) { try LinkCodeSuite().run(badArchiveKey) }
        var badMailbox = linkCodes[0]
        badMailbox["mailbox_identity_key"] = String(repeating: "00", count: 32)
        #expect(throws: (any Error).self) { try LinkCodeSuite().run(badMailbox) }
        var wrongReason = try #require(linkCodes.first { $0["error"] as? String == "badChecksum" })
        wrongReason["error"] = "badPadding"
        #expect(throws: (any Error).self) { try LinkCodeSuite().run(wrongReason) }
        // A directory whose write signature or refusal reason is off fails.
        let (_, directories) = try Self.load("device-directory")
        var badWrite = directories[0]
        badWrite["put_signature"] = String(repeating: "00", count: 64)
        #expect(throws: (any Error).self) { try DeviceDirectorySuite().run(badWrite) }
        var wrongRefusal = try #require(directories.first { $0["error"] as? String == "badPadding" })
        wrongRefusal["error"] = "notOpened"
        #expect(throws: (any Error).self) { try DeviceDirectorySuite().run(wrongRefusal) }
    }

    /// `testCase` with the last hex digit of `testCase[list][index][field]` changed.
    static func altering(_ testCase: [String: Any], list: String, index: Int, field: String) throws -> [String: Any] {
        var items = try #require(testCase[list] as? [[String: Any]])
        let value = try #require(items[index][field] as? String)
        items[index][field] = String(value.dropLast()) + (value.hasSuffix("0") ? "1" : "0")
        var altered = testCase
        altered[list] = items
        return altered
    }
}
