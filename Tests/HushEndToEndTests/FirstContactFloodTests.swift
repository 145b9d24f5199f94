import Foundation
import Glibc
import Testing

/// A flood of anonymous (credential-less) deposits from 200 loopback
/// addresses must neither lock a genuine newcomer out of the victim's
/// mailbox nor fill the victim's quarantine. The flood runs 15 s here (the
/// hostile run used 60 s; the point is made well within 15).
@Suite struct FirstContactFloodTests {
    final class Tally: @unchecked Sendable {
        let lock = NSLock()
        var statuses: [Int: Int] = [:]
        func add(_ status: Int) { lock.withLock { statuses[status, default: 0] += 1 } }
    }

    @Test func aNewcomersFirstMessageArrivesDuringAFloodAndNoJunkIsStored() throws {
        let bed = try Testbed("flood")
        let bob = try bed.newUser("bob")
        let path = "/v1/mailboxes/\(bob.identityKey)/messages"
        let tally = Tally()
        let floodSeconds = 15.0
        let floodStart = Date()
        let flood = Thread {
            DispatchQueue.concurrentPerform(iterations: 8) { worker in
                var index = worker
                while Date().timeIntervalSince(floodStart) < floodSeconds {
                    let source = "127.1.\(index % 200 / 100).\(1 + index % 100)"
                    let junk = (0..<600).map { _ in UInt8.random(in: 0...255) }
                    let body = "{\"requestID\":\"junk-\(worker)-\(index)\",\"envelope\":\"\(Data(junk).base64EncodedString())\"}"
                    let request = "POST \(path) HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n" + body
                    tally.add((try? RawHTTP.exchange(port: bed.relay.port, Array(request.utf8), from: source).status) ?? 0)
                    index += 8
                }
            }
        }
        flood.start()
        sleep(2)

        // A genuine newcomer, in the middle of the flood.
        let carol = try bed.newUser("carol")
        let start = Date()
        try bed.addContact(carol, bob)
        try bed.send(carol, to: "bob", "hello from a newcomer, during a flood")
        var arrived: Double?
        while Date().timeIntervalSince(start) < 30 {
            let report = try bed.sync(bob)
            if (report["received"] as? Int ?? 0) > 0 { arrived = Date().timeIntervalSince(start); break }
            usleep(500_000)
        }
        let latency = try #require(arrived, "the newcomer's first message did not arrive within 30 s")
        print("first-contact flood: newcomer's message arrived after \(String(format: "%.1f", latency)) s")
        while Date().timeIntervalSince(floodStart) < floodSeconds + 1 { usleep(200_000) }

        try bed.sync(bob)
        let statuses = tally.lock.withLock { tally.statuses }
        print("first-contact flood: responses by status \(statuses.sorted { $0.key < $1.key })")
        #expect(statuses[201] == nil, "no junk deposit was stored: \(statuses)")
        #expect((statuses[428] ?? 0) > 200, "the flood ran and was refused for want of work: \(statuses)")
        let audit = try bed.hush(bob, ["audit", "local", "--json"]).json()
        #expect((audit["quarantined"] as? [Any])?.isEmpty == true, "the victim's quarantine stays empty")
        #expect(try bed.storedEnvelopes(for: bob) == 0)
    }
}
