import Foundation
import Glibc
import Testing

/// Anonymous requests that once killed the relay process: each must get a
/// 4xx and leave the relay answering everyone else.
@Suite struct HostileRequestTests {
    @Test func aRegistrationWithAnExtremeTimestampIsRefusedAndTheRelayKeepsServing() throws {
        let bed = try Testbed("hostile")
        let alice = try bed.newUser("alice")
        // A real identity key (the route checks it is one before the clock), junk everywhere else.
        let hex = Array(alice.identityKey.utf8)
        let identity = stride(from: 0, to: hex.count, by: 2).map { UInt8(String(decoding: hex[$0..<$0 + 2], as: UTF8.self), radix: 16)! }
        let identityKey = Data(identity).base64EncodedString()
        let junkKey = String(repeating: "A", count: 43) + "="
        let junkPrekey = "{\"kind\":1,\"id\":1,\"publicKey\":\"\(junkKey)\",\"signature\":\"\(junkKey)\"}"
        for timestamp in ["-9223372036854775808", "-9223372036854775000", "9223372036854775807"] {
            let body = "{\"identityKey\":\"\(identityKey)\",\"signedPrekey\":\(junkPrekey),\"lastResortKEMPrekey\":\(junkPrekey)," +
                "\"oneTimePrekeys\":[],\"timestamp\":\(timestamp),\"proof\":\"\(junkKey)\"}"
            let response = try RawHTTP.post(port: bed.relay.port, path: "/v1/identities", json: body)
            #expect((400..<500).contains(response.status), "timestamp \(timestamp): \(response.status) \(response.body)")
            #expect(bed.relay.isRunning, "the relay died on timestamp \(timestamp)")
        }
        // Still serving: a new user registers and a message goes through.
        let bob = try bed.newUser("bob")
        try bed.addContact(alice, bob)
        #expect(try bed.send(alice, to: "bob", "still here")["status"] as? String == "sent")
    }
}

/// Malformed HTTP is the client's mistake (4xx), and nothing the relay logs,
/// even at trace level, holds an identity key.
@Suite struct MalformedHTTPAndLogTests {
    @Test func aMalformedChunkIsA400AndTheTraceLogHoldsNoIdentityKey() throws {
        let bed = try Testbed("malformed-http", relayLogLevel: "trace")
        let alice = try bed.newUser("alice"), bob = try bed.newUser("bob")
        try bed.addContact(alice, bob)
        try bed.send(alice, to: "bob", "hello")
        let listening = try bed.spawn(bob, ["listen", "--json"])
        #expect(listening.wait(timeout: 20) { $0.stdout.contains("\"online\":true") }, "\(listening.stderr)")
        try bed.send(alice, to: "bob", "while bob listens")
        listening.signal(SIGTERM)
        _ = listening.finish(timeout: 10)

        let path = "/v1/mailboxes/\(bob.identityKey)/messages"
        for body in ["ZZZ\r\nabc\r\n0\r\n\r\n", "-1\r\nabc\r\n0\r\n\r\n", "ffffffffffffffffffff\r\nabc\r\n0\r\n\r\n"] {
            let request = "POST \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n" +
                "Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n" + body
            let response = try RawHTTP.exchange(port: bed.relay.port, Array(request.utf8))
            #expect((400..<500).contains(response.status), "chunk \(body.prefix(8)): \(response.status) \(response.body)")
        }
        #expect(bed.relay.isRunning)
        let log = bed.relay.log
        #expect(!log.isEmpty, "the trace log is captured")
        for user in [alice, bob] {
            #expect(!log.lowercased().contains(user.identityKey.lowercased()), "\(user.name)'s identity key is in the relay log")
        }
    }
}
