import Foundation
import HushCrypto
import HushRelayAPI
import Hummingbird

/// Deposit (anyone, sealed sender; see `DepositRoute`), sync and acknowledge (owner only).
enum MailboxRoutes {
    static func add(to router: Router<RelayRequestContext>, core: RelayCore) {
        DepositRoute.add(to: router, core: core)
        FanOutRoute.add(to: router, core: core)

        router.get("/v1/mailboxes/{identity}/messages") { request, context in
            try core.limit(core.limits.perAddress, context.remoteAddress)
            let mailbox = try core.identity(fromPath: context)
            _ = try await core.authenticate(request, owner: mailbox)
            let query = request.uri.queryParameters
            let after = try query.get("after").map { value -> UInt64 in
                guard let id = UInt64(value) else { throw RelayError.badRequest("after must be a message id") }
                return id
            } ?? 0
            let limit = try query.get("limit").map { value -> Int in
                guard let limit = Int(value), (1...RelayLimits.maxSyncLimit).contains(limit) else {
                    throw RelayError.badRequest("limit must be 1…\(RelayLimits.maxSyncLimit)")
                }
                return limit
            } ?? RelayLimits.defaultSyncLimit
            // One extra row tells whether more follow.
            let stored = try await core.storage.mailboxes.messages(mailbox: mailbox, after: after, limit: limit + 1, now: core.now)
            let page = stored.prefix(limit).map {
                MailboxMessage(messageID: $0.messageID, timestamp: $0.timestamp, expiresAt: $0.expiresAt, envelope: Base64Bytes($0.envelope),
                               envelopeSHA256: Base64Bytes(EnvelopeDigest.of($0.envelope)))
            }
            core.metrics.syncs.increment()
            return try JSONBody.response(SyncResponse(messages: Array(page), hasMore: stored.count > limit))
        }

        router.post("/v1/mailboxes/{identity}/ack") { request, context in
            try core.limit(core.limits.perAddress, context.remoteAddress)
            let mailbox = try core.identity(fromPath: context)
            _ = try await core.authenticate(request, owner: mailbox)
            let body = try await JSONBody.decode(AckRequest.self, from: request, limit: 64 * 1024)
            return try JSONBody.response(AckResponse(deleted: try await acknowledge(body.messageIDs, mailbox: mailbox, core: core)))
        }

        router.post("/v1/mailboxes/{identity}/credentials") { request, context in
            try core.limit(core.limits.perAddress, context.remoteAddress)
            let mailbox = try core.identity(fromPath: context)
            _ = try await core.authenticate(request, owner: mailbox)
            let body = try await JSONBody.decode(CredentialsRequest.self, from: request, limit: 64 * 1024)
            guard body.add.count + body.remove.count <= RelayLimits.maxCredentialsPerRequest else {
                throw RelayError.malformed("more than \(RelayLimits.maxCredentialsPerRequest) credential hashes")
            }
            guard (body.add + body.remove).allSatisfy({ $0.bytes.count == RelayLimits.credentialLength }) else {
                throw RelayError.malformed("credential hashes are 32 bytes")
            }
            let count = try await core.storage.credentials.updateCredentials(mailbox: mailbox, add: body.add.map(\.bytes), remove: body.remove.map(\.bytes))
            return try JSONBody.response(CredentialsResponse(count: count))
        }
    }
}

/// Socket frames are encoded once per event and shared by all recipients' sockets.
extension MailboxRoutes {
    /// Deletes the owner's acknowledged envelopes (`POST …/ack`, or an `ack`
    /// frame on the owner's socket); returns how many there were.
    static func acknowledge(_ ids: [UInt64], mailbox: [UInt8], core: RelayCore) async throws -> Int {
        guard ids.count <= RelayLimits.maxAckIDs else { throw RelayError.malformed("more than \(RelayLimits.maxAckIDs) ids") }
        let deleted = try await core.storage.mailboxes.acknowledge(mailbox: mailbox, messageIDs: ids)
        core.metrics.acks.increment()
        core.metrics.acknowledgedEnvelopes.increment(by: Int64(deleted))
        return deleted
    }
}

enum SocketFrames {
    static func encode(_ event: SocketServerEvent) -> String? {
        (try? JSONEncoder().encode(event)).map { String(decoding: $0, as: UTF8.self) }
    }

    /// The `message` event, written directly: it is built for every pushed
    /// deposit, and holds only integers and base64 (nothing to escape).
    /// `previousMessageID` is left out when unknown (a catch-up push).
    static func message(messageID: UInt64, timestamp: Int64, expiresAt: Int64, envelope: [UInt8], previousMessageID: UInt64?) -> String {
        let encoded = Data(envelope).base64EncodedString()
        let digest = Data(EnvelopeDigest.of(envelope)).base64EncodedString()
        let previous = previousMessageID.map { ",\"previousMessageID\":\($0)" } ?? ""
        return "{\"type\":\"message\",\"message\":{\"messageID\":\(messageID),\"timestamp\":\(timestamp),"
            + "\"expiresAt\":\(expiresAt),\"envelope\":\"\(encoded)\",\"envelopeSHA256\":\"\(digest)\"\(previous)}}"
    }
}
