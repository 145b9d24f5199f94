import Foundation
import HushCrypto
import HushRelayAPI
import Testing

extension Testbed {
    /// `hush audit relay --data DIR --json [--canary TEXT]` on the test's relay.
    func auditRelay(canary: String? = nil, sourceLocation: SourceLocation = #_sourceLocation) throws -> (result: CommandResult, report: [String: Any]) {
        let result = try hush(nil, ["audit", "relay", "--data", relay.dataDirectory, "--json"] + (canary.map { ["--canary", $0] } ?? []))
        return (result, try result.json())
    }

    /// How many envelopes the relay stores for `user`'s mailbox (from the relay audit).
    func storedEnvelopes(for user: User, sourceLocation: SourceLocation = #_sourceLocation) throws -> Int {
        let (result, report) = try auditRelay(sourceLocation: sourceLocation)
        try #require(result.status == 0, "\(result)", sourceLocation: sourceLocation)
        let messages = try #require(report["messages"] as? [[String: Any]], sourceLocation: sourceLocation)
        return messages.filter { $0["mailbox"] as? String == user.identityKey }.count
    }

    /// Deposits raw bytes into `user`'s mailbox with a plain HTTP POST, as
    /// anyone who knows the identity key could (deposits need no login), doing
    /// the first-contact proof of work the relay asks for (`withWork`) or not;
    /// to the test's relay, or to the one listening on `port`.
    func depositRaw(_ envelope: [UInt8], to user: User, requestID: String, withWork: Bool = true, port: Int? = nil) throws -> RawHTTP.Response {
        func post(work: [UInt8]?) throws -> RawHTTP.Response {
            let field = work.map { ",\"work\":\"\(Data($0).base64EncodedString())\"" } ?? ""
            let body = "{\"requestID\":\"\(requestID)\",\"envelope\":\"\(Data(envelope).base64EncodedString())\"\(field)}"
            return try RawHTTP.post(port: port ?? relay.port, path: "/v1/mailboxes/\(user.identityKey)/messages", json: body)
        }
        let first = try post(work: nil)
        guard withWork, first.status == 428, let bits = first.headers["hush-work-bits"].flatMap(Int.init) else { return first }
        let mailbox = try Array(Hex.decode(user.identityKey))
        return try post(work: FirstContactWork.solve(mailbox: mailbox, requestID: requestID, envelope: envelope, bits: bits))
    }
}
