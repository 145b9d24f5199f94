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

    /// A home whose registration failed at `hush init` (the relay was down) cannot log in once the relay
    /// is back: `hush sync` says the key is not registered and what to run, not "HTTP 404, not_found".
    @Test func aSyncOfAHomeTheRelayDoesNotKnowSaysToRegister() throws {
        let bed = try Testbed("register-later")
        bed.relay.kill()
        let carol = User(name: "carol", home: bed.root + "/carol")
        let initialised = try bed.hush(carol, ["init", "--name", "carol", "--relay", bed.relay.url])
        #expect(initialised.stderr.contains("hush register"), "\(initialised)")
        try bed.relay.start()
        let refused = try bed.hush(carol, ["sync"])
        #expect(refused.status == 22, "\(refused)")
        #expect(refused.stderr.contains("not registered at this relay") && refused.stderr.contains("`hush register`"), "\(refused)")
        try bed.succeed(carol, ["register", "--json"])
        try bed.sync(carol)
    }
}
