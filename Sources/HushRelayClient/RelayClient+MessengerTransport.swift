import HushCrypto
import HushMessenger
import HushProtocol
import HushRelayAPI

/// The relay client as the messenger's transport: the same calls, with
/// failures reduced to the `DeliveryFailure` the outbox decides on.
public struct RelayClientTransport: RelayTransport, BlobTransfer {
    public let client: RelayClient
    private let live = LiveSocketSlot()

    public init(client: RelayClient) {
        self.client = client
    }

    /// A refused login keeps the relay's reason (another relay's origin, an
    /// old client): logging in again would be refused the same way. A key
    /// the relay does not know (404 to the challenge: never registered there,
    /// a registration that failed at `hush init` or at a link, or a relay that
    /// lost its data) says so, not "HTTP 404".
    public func authenticate(identity: IdentityKeyPair) async throws(DeliveryFailure) {
        do {
            _ = try await client.authenticate(identity: identity.signingKey)
        } catch let .http(401, code, message, _) where code == RelayErrorCode.authenticationFailed.rawValue {
            throw .loginRefused(reason: message)
        } catch let .http(404, code, _, _) where code == RelayErrorCode.notFound.rawValue {
            throw .loginRefused(reason: "this device's key is not registered at this relay; register it (`hush register`), then try again")
        } catch let .invalidRelayURL(what) {
            throw .loginRefused(reason: RelayClientError.invalidRelayURL(what).description)
        } catch let .pinMismatch(expected, presented) {
            throw .loginRefused(reason: RelayClientError.pinMismatch(expected: expected, presented: presented).description)
        } catch {
            throw DeliveryFailure(error)
        }
    }

    public var sessionToken: SessionToken? {
        client.currentToken.map { SessionToken(token: $0.token, expiresAt: $0.expiresAt) }
    }

    public func resume(_ token: SessionToken, identity: IdentityKeyPair) {
        client.useToken(token.token, identity: identity.publicKey.rawRepresentation, expiresAt: token.expiresAt)
    }

    public func register(identity: IdentityKeyPair, signedPrekey: SignedPrekey, lastResortKEMPrekey: SignedPrekey,
                         oneTimePrekeys: [SignedPrekey]) async throws(DeliveryFailure) -> Int64 {
        let timestamp = client.clock.now()
        _ = try await map { () async throws(RelayClientError) in
            try await client.register(identity: identity.signingKey, signedPrekey: signedPrekey,
                                      lastResortKEMPrekey: lastResortKEMPrekey, oneTimePrekeys: oneTimePrekeys, timestamp: timestamp)
        }
        return timestamp
    }

    public func uploadPrekeys(_ prekeys: [SignedPrekey]) async throws(DeliveryFailure) -> (x25519: Int, kem: Int) {
        let counts = try await map { () async throws(RelayClientError) in try await client.uploadPrekeys(prekeys) }
        return (counts.oneTimeX25519, counts.oneTimeKEM)
    }

    public func prekeyCounts() async throws(DeliveryFailure) -> (x25519: Int, kem: Int, registration: HeldRegistration?) {
        let counts = try await map { () async throws(RelayClientError) in try await client.prekeyCount() }
        // A relay that does not say (an older one), or says it in a shape we cannot read, tells nothing.
        let registration = counts.registeredAt.flatMap { at in
            (try? counts.signedPrekey?.prekey()).flatMap { HeldRegistration(registeredAt: at, signedPrekey: $0) }
        }
        return (counts.oneTimeX25519, counts.oneTimeKEM, registration)
    }

    public func fetchBundle(for identity: IdentityKey) async throws(DeliveryFailure) -> PrekeyBundle {
        try await map { () async throws(RelayClientError) in try await client.fetchBundle(for: identity.rawRepresentation) }
    }

    public func updateDeliveryCredentials(add tokens: [[UInt8]], remove revoked: [[UInt8]]) async throws(DeliveryFailure) {
        _ = try await map { () async throws(RelayClientError) in try await client.updateCredentials(add: tokens, remove: revoked) }
    }

    public func deposit(_ envelope: [UInt8], to recipient: IdentityKey, requestID: String,
                        credential: [UInt8]?) async throws(DeliveryFailure) -> DepositReceipt {
        let response = try await map { () async throws(RelayClientError) in
            try await client.deposit(recipient: recipient.rawRepresentation, envelope: envelope, requestID: requestID, credential: credential)
        }
        return DepositReceipt(serverID: Int64(clamping: response.messageID), relayTimestamp: response.timestamp)
    }

    /// One `POST /v1/fanout` (more only for first contacts asked for work);
    /// each recipient's refusal maps as `deposit`'s error would.
    public func depositFanOut(_ envelope: [UInt8], requestID: String,
                              to recipients: [FanOutRecipient]) async throws(DeliveryFailure) -> [Result<DepositReceipt, DeliveryFailure>] {
        let results = try await map { () async throws(RelayClientError) in
            try await client.depositFanOut(envelope: envelope, requestID: requestID, recipients: recipients.map {
                RelayFanOutTarget(mailbox: $0.key.rawRepresentation, credential: $0.credential)
            })
        }
        return results.map { result in
            result.map { DepositReceipt(serverID: Int64(clamping: $0.messageID), relayTimestamp: $0.timestamp) }.mapError { DeliveryFailure($0) }
        }
    }

    /// A page is used only when every envelope matches its digest (a damaged
    /// one would fail its sealed layer and be set aside as a forgery): a
    /// damaged page is fetched again, twice at most, and otherwise the sync
    /// fails without acknowledging anything of it. Envelopes are handed on
    /// in id order, whatever order the page came in (the receiver's cursor
    /// assumes it).
    public func fetch(after serverID: Int64, limit: Int) async throws(DeliveryFailure) -> MailboxPage {
        for _ in 0..<3 {
            let page = try await map { () async throws(RelayClientError) in
                try await client.sync(after: UInt64(max(serverID, 0)), limit: limit)
            }
            guard page.messages.allSatisfy(\.isIntact) else { continue }
            let envelopes = page.messages.map(\.mailboxEnvelope).sorted { $0.serverID < $1.serverID }
            return MailboxPage(envelopes: envelopes, hasMore: page.hasMore)
        }
        throw .unavailable(reason: "envelopes kept arriving damaged from the relay (their SHA-256 did not match)")
    }

    /// Over the live socket when `connect` holds one (no request of its own;
    /// no answer either, and a lost one is made again by the next sync, which
    /// acknowledges what it finds already processed); over HTTP otherwise.
    public func acknowledge(_ serverIDs: [Int64]) async throws(DeliveryFailure) {
        let ids = serverIDs.map { UInt64(max($0, 0)) }
        if let socket = live.socket {
            do {
                try await socket.acknowledge(ids)
                return
            } catch {
                live.release(socket)
            }
        }
        _ = try await map { () async throws(RelayClientError) in try await client.ack(ids: ids) }
    }

    public func connect() async throws(DeliveryFailure) -> AsyncStream<TransportEvent> {
        let socket = try await map { () async throws(RelayClientError) in try await client.connectSocket() }
        let holder = SocketHolder(socket: socket)
        let live = self.live
        live.hold(socket)
        return AsyncStream { continuation in
            let task = Task {
                for await event in socket.events {
                    switch event {
                    case let .message(message):
                        continuation.yield(.envelope(message.pushedEnvelope))
                    case let .ephemeral(bytes):
                        continuation.yield(.ephemeral(bytes))
                    case .error:
                        continue
                    case let .closed(_, reason):
                        live.release(socket)
                        continuation.yield(.disconnected(reason: reason ?? "closed"))
                        continuation.finish()
                        return
                    }
                }
                live.release(socket)
                continuation.yield(.disconnected(reason: "closed"))
                continuation.finish()
            }
            continuation.onTermination = { _ in
                live.release(holder.socket)
                task.cancel()
                Task { await holder.socket.close() }
            }
        }
    }

    public func sendEphemeral(_ envelope: [UInt8], to recipient: IdentityKey, credential: [UInt8]) async throws(DeliveryFailure) {
        // Over the live socket when `connect` holds one; a short connection
        // of its own only when there is none (or it closed under us).
        if let socket = live.socket {
            do {
                try await socket.sendEphemeral(to: recipient.rawRepresentation, credential: credential, envelope: envelope)
                return
            } catch {
                live.release(socket)
            }
        }
        let socket = try await map { () async throws(RelayClientError) in try await client.connectSocket() }
        defer { Task { await socket.close() } }
        try await map { () async throws(RelayClientError) in
            try await socket.sendEphemeral(to: recipient.rawRepresentation, credential: credential, envelope: envelope)
        }
    }

    public func startBlobUpload(length: Int64) async throws(DeliveryFailure) -> String {
        try await mapUpload { () async throws(RelayClientError) in try await client.startBlobUpload(length: length).uploadID }
    }

    public func continueBlobUpload(id: String, file path: String, length: Int64, segmentBytes: Int64,
                                   growing: GrowingUploadFile?,
                                   progress: @escaping @Sendable (Int64) -> Void) async throws(DeliveryFailure) -> BlobUploadStep {
        try await mapUpload { () async throws(RelayClientError) in
            // Ask where the relay's copy ends: a cut-off attempt left some bytes there.
            let status = try await client.blobUploadStatus(id: id)
            let from = Int64(status.received)
            progress(from)
            let (blob, after) = try await client.continueBlobUpload(id: id, file: path, from: from, to: from + segmentBytes,
                                                                    length: length, growing: growing, progress: progress)
            if let blob { return BlobUploadStep(received: Int64(blob.size), blobID: blob.blobID) }
            return BlobUploadStep(received: Int64(after?.received ?? status.received), blobID: nil)
        }
    }

    /// `map` for uploads: a 413 keeps the relay's words (over the blob limit, or the uploader's quota, and what to do).
    private func mapUpload<T>(_ call: () async throws(RelayClientError) -> T) async throws(DeliveryFailure) -> T {
        do {
            return try await call()
        } catch let .http(413, _, message, _) {
            throw .rejected(status: 413, code: message)
        } catch let .http(409, _, message, _) {
            // The relay's copy moved (an earlier attempt still arriving): later, from where it stands.
            throw .unavailable(reason: message)
        } catch {
            throw DeliveryFailure(error)
        }
    }

    public func downloadBlob(id: String, from offset: Int64, maxBytes: Int64, into sink: any BlobSink) async throws {
        do {
            try await client.downloadBlob(id: id, from: offset, maxBytes: maxBytes) { try sink.write(contentsOf: $0) }
        } catch let error as RelayClientError {
            throw DeliveryFailure(error)
        }
    }

    /// Runs a client call and maps its error for the outbox's retry rules.
    private func map<T>(_ call: () async throws(RelayClientError) -> T) async throws(DeliveryFailure) -> T {
        do {
            return try await call()
        } catch {
            throw DeliveryFailure(error)
        }
    }
}

private final class SocketHolder: Sendable {
    let socket: RelaySocket
    init(socket: RelaySocket) { self.socket = socket }
}

extension DeliveryFailure {
    /// The relay's Retry-After is its number, not ours: a negative one means
    /// now, and one beyond a day is read as a day (Int64 arithmetic on it
    /// would otherwise overflow and trap).
    static func retryAfterMilliseconds(_ seconds: Int) -> Int64 {
        Int64(min(max(seconds, 0), RelayLimits.maxRetryAfterSeconds)) * 1000
    }

    /// 401 re-authenticate; 413 too large (a full mailbox: retry); 429 back off (Retry-After);
    /// 5xx and network errors retry; other 4xx are permanent.
    public init(_ error: RelayClientError) {
        switch error {
        case .notAuthenticated, .socketRefused:
            self = .unauthorized
        case let .http(status, code, message, retryAfter):
            switch status {
            case 401: self = .unauthorized
            // A full mailbox (the recipient has not fetched for a while) empties again: later, with
            // backoff, like a relay that cannot store now (a walkthrough: it failed as "too large").
            case 413 where code == RelayErrorCode.quotaExceeded.rawValue:
                self = .unavailable(reason: message.isEmpty ? "the recipient's mailbox at the relay is full" : message)
            case 413: self = .tooLarge
            // First-contact work the client would not or could not do now: later, with backoff.
            case 428: self = .rateLimited(retryAfterMilliseconds: nil)
            case 429: self = .rateLimited(retryAfterMilliseconds: retryAfter.map(DeliveryFailure.retryAfterMilliseconds))
            case 500...: self = .unavailable(reason: "HTTP \(status)" + (message.isEmpty ? "" : ": \(message)"))
            // Damaged on the way: nothing was stored; the same request again is the cure.
            case 400 where code == RelayErrorCode.digestMismatch.rawValue:
                self = .unavailable(reason: "the envelope arrived damaged at the relay")
            default: self = .rejected(status: status, code: code)
            }
        case let .transport(what):
            self = .unavailable(reason: what)
        case .pinMismatch:
            self = .unavailable(reason: error.description)
        case let .invalidResponse(what), let .invalidRelayURL(what):
            self = .rejected(status: 0, code: what)
        }
    }
}

extension MailboxMessage {
    var mailboxEnvelope: MailboxEnvelope {
        MailboxEnvelope(serverID: Int64(clamping: messageID), relayTimestamp: timestamp, bytes: envelope.bytes)
    }

    /// A pushed envelope with its previous id, which lets the receiver apply
    /// it without a sync; dropped when the envelope does not match its
    /// digest or the id is impossible, so that the push only signals a sync
    /// (which fetches the envelope again).
    var pushedEnvelope: MailboxEnvelope {
        let previous = previousMessageID.flatMap { $0 < messageID && isIntact ? Int64(clamping: $0) : nil }
        return MailboxEnvelope(serverID: Int64(clamping: messageID), relayTimestamp: timestamp, bytes: envelope.bytes,
                               previousServerID: previous)
    }
}

extension RelayClientTransport: DeviceDirectoryLookup {
    public func deviceList(of account: IdentityKey) async throws(DeliveryFailure) -> DeviceList? {
        do {
            return try await client.fetchDirectory(of: account)
        } catch {
            throw DeliveryFailure(error)
        }
    }
}
