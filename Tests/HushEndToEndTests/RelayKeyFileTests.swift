import Foundation
import Glibc
import Testing

/// The relay's database key may live outside its data directory, and the
/// relay refuses a data directory that other users can open.
@Suite struct RelayKeyFileTests {
    @Test func withTheKeyElsewhereTheDataDirectoryAloneOpensNothing() throws {
        let bed = try Testbed("relay-key")
        let outside = bed.root + "/secrets"
        try FileManager.default.createDirectory(atPath: outside, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let keyFile = outside + "/relay.key"
        let data = bed.root + "/relay-elsewhere"
        let relay = try RelayServer(dataDirectory: data, options: ["--key-file", keyFile])
        defer { relay.kill() }

        #expect(!FileManager.default.fileExists(atPath: data + "/relay.key"), "no key beside the database")
        var info = stat()
        #expect(stat(keyFile, &info) == 0 && info.st_mode & 0o777 == 0o600)

        // The relay works: a message goes through it.
        let alice = try bed.newUser("alice", relayURL: relay.url), bob = try bed.newUser("bob", relayURL: relay.url)
        try bed.addContact(alice, bob)
        try bed.send(alice, to: "bob", "through a relay whose key lives elsewhere")

        // Whoever holds only the data directory cannot read relay.db; with the key one can.
        let withoutKey = try bed.hush(nil, ["audit", "relay", "--data", data, "--json"])
        #expect(withoutKey.status != 0 && withoutKey.stderr.contains("key file"), "\(withoutKey)")
        let withKey = try bed.hush(nil, ["audit", "relay", "--data", data, "--key-file", keyFile, "--json"])
        #expect(withKey.status == 0, "\(withKey)")
        // The delivery credential and display name alice's first message hands over, and the message.
        #expect(((try withKey.json()["messages"]) as? [Any])?.count == 3)
        let fromEnvironment = try bed.hush(nil, ["audit", "relay", "--data", data, "--json"], environment: ["HUSH_RELAY_KEY_FILE": keyFile])
        #expect(fromEnvironment.status == 0, "\(fromEnvironment)")
    }

    @Test func aDataDirectoryOpenToOtherUsersIsRefusedAtStart() throws {
        let bed = try Testbed("relay-modes")
        let data = bed.root + "/relay-loose"
        // A first start creates everything with tight modes.
        let first = try RelayServer(dataDirectory: data)
        first.stop()
        for (path, mode) in [(data, 0o755), (data + "/blobs", 0o777), (data + "/relay.db", 0o644)] {
            chmod(path, mode_t(mode))
            let result = try bed.hush(nil, ["relay", "serve", "--port", "0", "--data", data], timeout: 15)
            #expect(result.status != 0 && result.stderr.contains("open to other users") && result.stderr.contains(path),
                    "\(path) \(String(mode, radix: 8)): \(result)")
            chmod(path, mode_t(path.hasSuffix(".db") ? 0o600 : 0o700))
        }
        let again = try RelayServer(dataDirectory: data)
        #expect(again.isRunning)
        again.stop()
    }
}
