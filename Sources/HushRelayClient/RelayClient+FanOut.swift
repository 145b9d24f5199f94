import Foundation
import HushRelayAPI
import NIOCore

/// One mailbox of a fan-out deposit, and the credential its owner gave us (nil: first contact).
public struct RelayFanOutTarget: Sendable, Equatable {
    public var mailbox: [UInt8]
    public var credential: [UInt8]?

    public init(mailbox: [UInt8], credential: [UInt8]?) {
        self.mailbox = mailbox
        self.credential = credential
    }
}

extension RelayClient {
    /// Deposits one sealed envelope for several mailboxes in one request
    /// (`POST /v1/fanout`): the relay stores it for every admitted recipient
    /// in one transaction and answers each recipient as a single deposit
    /// would. Safe to repeat with the same `requestID` (idempotent per
    /// mailbox). Recipients answered 428 `work_required` (first contacts)
    /// get the proof of work solved, as `deposit` does, and are sent again,
    /// those only, up to three rounds in all.
    ///
    /// Returns one result per recipient, in order: the 201's id and time, or
    /// the relay's refusal for that recipient as `.http`. Throws only when
    /// the request fails as a whole (transport, 5xx, 429, 413, 422 …).
    public func depositFanOut(envelope: [UInt8], requestID: String,
                              recipients: [RelayFanOutTarget]) async throws(RelayClientError) -> [Result<DepositResponse, RelayClientError>] {
        var results = [Result<DepositResponse, RelayClientError>?](repeating: nil, count: recipients.count)
        var work = [[UInt8]?](repeating: nil, count: recipients.count)
        var pending = Array(recipients.indices)
        let digest = Base64Bytes(EnvelopeDigest.of(envelope))
        for round in 0..<Self.fanOutRounds where !pending.isEmpty {
            let request = FanOutRequest(requestID: requestID, envelope: Base64Bytes(envelope), recipients: pending.map { index in
                FanOutRequest.Recipient(mailbox: Base64Bytes(recipients[index].mailbox), credential: recipients[index].credential.map(Base64Bytes.init),
                                        work: work[index].map(Base64Bytes.init))
            }, envelopeSHA256: digest)
            let response = try await call(.POST, RelayPaths.fanOut, body: request, repeatable: true, as: FanOutResponse.self)
            guard response.results.count == pending.count else {
                throw .invalidResponse("the fan-out answered \(response.results.count) results for \(pending.count) recipients")
            }
            var again: [Int] = []
            for (index, result) in zip(pending, response.results) {
                if result.status == 201, let messageID = result.messageID, let timestamp = result.timestamp {
                    results[index] = .success(DepositResponse(messageID: messageID, timestamp: timestamp))
                } else if result.status == 428, recipients[index].credential == nil, let bits = result.workBits, bits <= Self.maxWorkBits,
                          round + 1 < Self.fanOutRounds {
                    work[index] = FirstContactWork.solve(mailbox: recipients[index].mailbox, requestID: requestID, envelope: envelope, bits: bits)
                    again.append(index)
                } else if result.status == 428, recipients[index].credential == nil, let bits = result.workBits, bits <= Self.maxWorkBits {
                    // The last round, and still asked for work.
                    results[index] = .failure(.http(status: 428, code: RelayErrorCode.workRequired.rawValue,
                                                    message: "the relay kept raising the first-contact work; retry later", retryAfterSeconds: nil))
                } else if (200..<300).contains(result.status) {
                    results[index] = .failure(.invalidResponse("a fan-out result of status \(result.status) without an id"))
                } else {
                    results[index] = .failure(.http(status: result.status, code: result.error ?? "unknown",
                                                    message: result.message ?? "HTTP \(result.status)", retryAfterSeconds: result.retryAfter))
                }
            }
            pending = again
        }
        return results.map { $0 ?? .failure(.invalidResponse("the fan-out left a recipient unanswered")) }
    }

    /// Requests one fan-out may take: the first, and two more for first
    /// contacts that were asked for work (as `deposit`'s three attempts).
    static let fanOutRounds = 3
}
