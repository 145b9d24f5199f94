import Foundation
import HushTesting
import Testing

/// `hush device` and `hush init --link` as processes: what they refuse before any relay is asked.
extension HushCLITests {
    @Test func initWithABadLinkCodeWritesNoHomeAndDeviceCommandsNeedAnAccount() throws {
        let home = try Home()
        let typo = try hush(["init", "--home", home.path, "--link", "07AD-CMR6-VZEB-BJQ5-JV3H-PNM9-G0FE-5ZYX-Y3S5-3WHQ-63VF-AE87-THSH"])
        #expect(typo.status != 0 && typo.stderr.contains("not a link code") && !typo.stderr.contains("invalid link code"), "\(typo.stderr)")
        #expect(!FileManager.default.fileExists(atPath: home.path + "/keystore"))
        let mixed = try hush(["init", "--home", home.path, "--link", "X", "--name", "alice"])
        #expect(mixed.status == 64 && mixed.stderr.contains("--link"), "\(mixed.stderr)")
        let stray = try hush(["init", "--home", home.path, "--device-name", "laptop"])
        #expect(stray.status == 64, "\(stray.stderr)")

        #expect(try hush(["device", "list", "--home", home.path]).status == 10, "no account yet")
        #expect(try hush(["init", "--home", home.path]).status == 0)
        let none = try hush(["device", "list", "--home", home.path])
        #expect(none.status == 0 && none.stdout.contains("No device list yet"), "\(none.stdout)")
        // No relay: a link goes through one, and nothing was made for it.
        let noRelay = try hush(["device", "link", "--home", home.path])
        #expect(noRelay.status == 22 && noRelay.stdout.isEmpty, "\(noRelay.stderr)")
        let json = try hush(["device", "list", "--home", home.path, "--json"])
        #expect(json.status == 0 && json.stdout.contains("\"devices\""), "\(json.stdout)")
        // One device, no list: nothing to revoke, and the recovery key stays.
        let key = try hush(["backup", "key", "--home", home.path, "--json"]).stdout
        let revoke = try hush(["device", "revoke", "laptop", "--home", home.path])
        #expect(revoke.status != 0 && revoke.stderr.contains("no device list") && revoke.stdout.isEmpty, "\(revoke.stderr)")
        // No name at all: a usage error, before the keystore is opened (it said "no device named  or …").
        let unnamed = try hush(["device", "revoke", "", "--home", home.path])
        #expect(unnamed.status == 64 && unnamed.stderr.contains("no device named"), "\(unnamed.stderr)")
        #expect(try hush(["backup", "key", "--home", home.path, "--json"]).stdout == key)
    }
}
