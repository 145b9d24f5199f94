import Foundation
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
    /// anyone who knows the identity key could (deposits need no login).
    func depositRaw(_ envelope: [UInt8], to user: User, requestID: String) throws -> RawHTTP.Response {
        let body = "{\"requestID\":\"\(requestID)\",\"envelope\":\"\(Data(envelope).base64EncodedString())\"}"
        return try RawHTTP.post(port: relay.port, path: "/v1/mailboxes/\(user.identityKey)/messages", json: body)
    }
}
