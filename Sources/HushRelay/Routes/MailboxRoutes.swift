import Foundation
import HushCrypto
import HushRelayAPI
import Hummingbird

/// Deposit (anyone, sealed sender), sync and acknowledge (owner only).
enum MailboxRoutes {
    static func add(to router: Router<RelayRequestContext>, core: RelayCore) {
        router.post("/v1/mailboxes/{identity}/messages") { request, context in
            try core.limit(core.limits.perAddress, context.remoteAddress)
            let mailbox = try core.identity(fromPath: context)
            let body = try await JSONBody.decode(DepositRequest.self, from: request, limit: RelayLimits.maxJSONBodyBytes)
            guard RequestIDRules.isValid(body.requestID) else { throw RelayError.malformed("requestID must be 1…64 of [A-Za-z0-9_-]") }
            guard !body.envelope.bytes.isEmpty else { throw RelayError.malformed("the envelope is empty") }
            guard body.envelope.bytes.count <= RelayLimits.maxEnvelopeBytes else { throw RelayError.tooLarge("the envelope") }
            guard try await core.storage.isRegistered(identity: mailbox) else { throw RelayError.notFound("mailbox") }
            try await checkDeliveryRight(body, mailbox: mailbox, context: context, core: core)
            let now = core.now
            let outcome = try await core.storage.deposit(
                mailbox: mailbox, requestID: body.requestID, envelope: body.envelope.bytes, now: now,
                expiresAt: now + core.configuration.retentionSeconds * 1000,
                quota: MailboxQuota(maxCount: core.configuration.mailboxQuotaCount, maxBytes: core.configuration.mailboxQuotaBytes))
            let record = outcome.record
            if case .stored = outcome {
                let message = MailboxMessage(messageID: record.messageID, timestamp: record.timestamp, expiresAt: record.expiresAt, envelope: body.envelope)
                if let frame = SocketFrames.encode(.message(message)) { core.hub.send(frame, to: mailbox) }
                core.logger.debug("envelope deposited", metadata: ["size": "\(body.envelope.bytes.count)", "messageID": "\(record.messageID)"])
            }
            return try JSONBody.response(DepositResponse(messageID: record.messageID, timestamp: record.timestamp), status: .created)
        }

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
            let stored = try await core.storage.messages(mailbox: mailbox, after: after, limit: limit + 1, now: core.now)
            let page = stored.prefix(limit).map {
                MailboxMessage(messageID: $0.messageID, timestamp: $0.timestamp, expiresAt: $0.expiresAt, envelope: Base64Bytes($0.envelope))
            }
            return try JSONBody.response(SyncResponse(messages: Array(page), hasMore: stored.count > limit))
        }

        router.post("/v1/mailboxes/{identity}/ack") { request, context in
            try core.limit(core.limits.perAddress, context.remoteAddress)
            let mailbox = try core.identity(fromPath: context)
            _ = try await core.authenticate(request, owner: mailbox)
            let body = try await JSONBody.decode(AckRequest.self, from: request, limit: 64 * 1024)
            guard body.messageIDs.count <= RelayLimits.maxAckIDs else { throw RelayError.malformed("more than \(RelayLimits.maxAckIDs) ids") }
            let deleted = try await core.storage.acknowledge(mailbox: mailbox, messageIDs: body.messageIDs)
            return try JSONBody.response(AckResponse(deleted: deleted))
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
            let count = try await core.storage.updateCredentials(mailbox: mailbox, add: body.add.map(\.bytes), remove: body.remove.map(\.bytes))
            return try JSONBody.response(CredentialsResponse(count: count))
        }
    }

    /// A deposit with a credential must present a valid one (403); one without
    /// is first contact: a repeat of an earlier request id passes, anything new
    /// spends from the tight per-mailbox and per-address buckets (429).
    static func checkDeliveryRight(_ body: DepositRequest, mailbox: [UInt8], context: RelayRequestContext, core: RelayCore) async throws {
        if let credential = body.credential {
            guard credential.bytes.count == RelayLimits.credentialLength,
                  try await core.storage.hasCredential(mailbox: mailbox, hash: DeliveryCredential.hash(credential.bytes)) else {
                throw RelayError.invalidCredential
            }
            return
        }
        if try await core.storage.findDeposit(mailbox: mailbox, requestID: body.requestID) != nil { return }
        try core.limit(core.limits.firstContactPerAddress, context.remoteAddress)
        try core.limit(core.limits.firstContactPerMailbox, Hex.encode(mailbox))
    }
}

/// Socket frames are encoded once per event and shared by all recipients' sockets.
enum SocketFrames {
    static func encode(_ event: SocketServerEvent) -> String? {
        (try? JSONEncoder().encode(event)).map { String(decoding: $0, as: UTF8.self) }
    }
}
