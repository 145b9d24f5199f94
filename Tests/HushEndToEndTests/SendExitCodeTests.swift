import Foundation
import Testing

/// `hush send` tells a script what happened by its exit code: 0 accepted by
/// the relay, 25 queued because the relay was not reached (see
/// RelayRestartTests), 22 refused by the relay.
@Suite struct SendExitCodeTests {
    @Test func aSendTheRelayRefusesWithTooManyRequestsExits22AndStaysInTheOutbox() throws {
        let bed = try Testbed("send-429")
        let alice = try bed.newUser("alice")
        let bob = try bed.newUser("bob")
        try bed.addContact(alice, bob)
        // Bob never answers, so Alice holds no delivery credential for him: every
        // send is a first-contact deposit, of which the relay takes a few per mailbox.
        var refused: CommandResult?
        for index in 1...12 {
            let result = try bed.hush(alice, ["send", "bob", "knock \(index)", "--json"])
            if result.status != 0 { refused = result; break }
        }
        let result = try #require(refused, "the relay never refused a first-contact deposit")
        #expect(result.status == 22, "\(result)")
        #expect(result.stderr.contains("rate-limiting"), "\(result)")
        #expect(try result.json()["status"] as? String == "pending")
        #expect(try bed.outbox(alice).count == 1, "the refused message waits in the outbox for the relay's Retry-After")
    }
}
