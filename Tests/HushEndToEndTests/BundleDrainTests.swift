import Foundation
import Testing

/// Anyone may fetch anyone's bundle without logging in. Fetching it over and
/// over must neither drain the one-time prekeys nor stop a genuine newcomer
/// from adding the contact.
@Suite struct BundleDrainTests {
    @Test func aStrangerFetchingBobsBundleRepeatedlyDoesNotLockNewcomersOut() throws {
        let bed = try Testbed("bundle-drain")
        let bob = try bed.newUser("bob")
        // An anonymous client fetches the bundle 40 times (the budget is 20).
        for fetch in 1...40 {
            let status = try RawHTTP.get(port: bed.relay.port, path: "/v1/identities/\(bob.identityKey)/bundle").status
            #expect(status == 200, "fetch \(fetch): \(status)")
        }
        // A genuine newcomer adds Bob at once, and they talk.
        let carol = try bed.newUser("carol")
        try bed.addContact(carol, bob)
        try bed.send(carol, to: "bob", "hello from a newcomer")
        #expect(try bed.sync(bob)["received"] as? Int == 3, "her delivery credential (PROTOCOL §11), her display name (§10.4) and the message")
    }
}
