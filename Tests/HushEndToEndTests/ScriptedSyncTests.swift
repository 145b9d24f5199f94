import Foundation
import Testing

/// A script that runs `hush sync` in a loop: the session token is kept
/// between runs, so the relay's login limit per address is never reached.
@Suite struct ScriptedSyncTests {
    @Test func aHundredSyncsInARowAllSucceed() throws {
        let bed = try Testbed("scripted-sync")
        let alice = try bed.newUser("alice")
        for run in 1...100 {
            let result = try bed.hush(alice, ["sync", "--json"])
            try #require(result.status == 0, "sync \(run): \(result)")
        }
    }
}
