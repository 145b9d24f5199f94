import Foundation
import HushCrypto
import HushRelayAPI
import Hummingbird
import HummingbirdWebSocket

/// `GET /v1/socket` with `Authorization: Bearer <token>` upgrades to a
/// WebSocket that pushes new envelopes of the token's mailbox and carries
/// ephemeral envelopes between connected contacts.
enum SocketRoute {
    /// Frames refused before the socket is closed as misbehaving.
    static let maxStrikes = 3

    /// The upgrade route lives on its own router so that only upgrade requests reach it.
    static func add(to router: Router<RelayRequestContext>, core: RelayCore) {
        router.ws("/v1/socket", shouldUpgrade: { request, _ in
            _ = try await core.authenticate(request)
            return .upgrade([:])
        }, onUpgrade: { inbound, outbound, context in
            guard let grant = try? await core.authenticate(context.request) else {
                try await outbound.close(.policyViolation, reason: "unauthorized")
                return
            }
            try await run(grant: grant, inbound: inbound, outbound: outbound, core: core)
        })
    }

    /// Plain GETs of the socket path (no upgrade) say what is wrong.
    static func addFallback(to router: Router<RelayRequestContext>, core: RelayCore) {
        router.get("/v1/socket") { request, _ -> Response in
            _ = try await core.authenticate(request)
            throw RelayError.badRequest("this endpoint needs a WebSocket upgrade")
        }
    }

    static func run(grant: TokenGrant, inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter, core: RelayCore) async throws {
        let identity = grant.identity
        let (socketID, frames) = core.hub.register(identity: identity)
        defer {
            core.hub.unregister(identity: identity, id: socketID)
            core.metrics.socketsOpen.record(core.hub.connectionCount)
        }
        core.metrics.socketsOpen.record(core.hub.connectionCount)
        core.logger.debug("socket opened", metadata: ["sockets": "\(core.hub.connectionCount)"])
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                for await frame in frames { try await outbound.write(.text(frame)) }
                // The hub ended this stream: another socket of the identity replaced it.
                try? await outbound.close(.goingAway, reason: "replaced by a newer connection")
            }
            group.addTask {
                try await readFrames(from: inbound, outbound: outbound, sender: identity, core: core)
            }
            group.addTask {
                let remaining = max(0, grant.expiresAt - core.now)
                try await Task.sleep(for: .milliseconds(min(remaining, 7 * 24 * 3600 * 1000)))
                try? await outbound.close(.policyViolation, reason: "token expired: authenticate again")
            }
            _ = try await group.next()
            group.cancelAll()
        }
    }

    static func readFrames(from inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter, sender: [UInt8], core: RelayCore) async throws {
        var strikes = 0
        for try await message in inbound.messages(maxSize: RelayLimits.maxSocketMessageBytes) {
            do {
                guard case let .text(text) = message else { throw RelayError.malformed("frames are JSON text") }
                try await handleClientFrame(Data(text.utf8), sender: sender, core: core)
            } catch let error as RelayError {
                strikes += 1
                if let frame = SocketFrames.encode(.error(.init(code: error.code.rawValue, message: error.clientMessage))) {
                    try await outbound.write(.text(frame))
                }
                if strikes >= maxStrikes {
                    try await outbound.close(.policyViolation, reason: "too many refused frames")
                    return
                }
            }
        }
    }

    /// A client frame: an ephemeral envelope for a contact, or an
    /// acknowledgement for the socket's own mailbox (`sender`: the socket's
    /// identity, from its token). Anything else is refused as malformed.
    static func handleClientFrame(_ data: Data, sender: [UInt8], core: RelayCore) async throws {
        func decode<Frame: Decodable>(_ type: Frame.Type) throws -> Frame {
            do { return try JSONDecoder().decode(type, from: data) } catch { throw RelayError.malformed(JSONBody.describe(error)) }
        }
        switch try decode(SocketClientFrameType.self).type {
        case "ephemeral":
            try await relayEphemeral(try decode(SocketClientFrame.self), sender: sender, core: core)
        case "ack":
            let frame = try decode(SocketAckFrame.self)
            try core.limit(core.limits.perIdentity, Hex.encode(sender))
            _ = try await MailboxRoutes.acknowledge(frame.messageIDs, mailbox: sender, core: core)
        default:
            throw RelayError.malformed("unknown frame type")
        }
    }

    /// Delivers an ephemeral envelope to the recipient's open sockets, if
    /// any, when the frame carries a valid delivery credential. Never stored.
    static func relayEphemeral(_ frame: SocketClientFrame, sender: [UInt8], core: RelayCore) async throws {
        guard frame.recipient.bytes.count == 32 else { throw RelayError.malformed("recipient is a 32-byte identity key") }
        guard !frame.envelope.bytes.isEmpty, frame.envelope.bytes.count <= RelayLimits.maxEphemeralBytes else {
            throw RelayError.tooLarge("the ephemeral envelope")
        }
        try core.limit(core.limits.perIdentity, Hex.encode(sender))
        guard frame.credential.bytes.count == RelayLimits.credentialLength,
              try await core.storage.credentials.hasCredential(mailbox: frame.recipient.bytes, hash: DeliveryCredential.hash(frame.credential.bytes)) else {
            throw RelayError.invalidCredential
        }
        if let event = SocketFrames.encode(.ephemeral(frame.envelope)) {
            core.hub.send(event, to: frame.recipient.bytes)
        }
    }
}
