import Foundation
import Testing

/// `hush register --relay URL` with a relay that cannot be reached fails
/// and leaves the account on its own relay, still registered there. Before,
/// the account moved to the unreachable relay and `hush whoami` said
/// "registered" there: every later send queued and every sync failed.
@Suite struct RegisterTests {
    @Test func aFailedRegistrationWithAnotherRelayKeepsTheAccountsOwn() throws {
        let bed = try Testbed("register-elsewhere")
        let alice = try bed.newUser("alice"), bob = try bed.newUser("bob")
        try bed.meet(alice, bob)

        let failed = try bed.hush(alice, ["register", "--relay", "http://127.0.0.1:1"])
        #expect(failed.status == 22, "\(failed)")
        let whoami = try bed.succeed(alice, ["whoami", "--json"]).json()
        #expect(whoami["relay"] as? String == bed.relay.url && whoami["registered"] as? Bool == true, "\(whoami)")
        try bed.send(alice, to: "bob", "still on the account's own relay")
        try bed.sync(bob)
        #expect(try bed.history(bob, with: "alice").incoming.bodies.last == "still on the account's own relay")
    }
}
