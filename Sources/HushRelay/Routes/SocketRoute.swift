import Foundation
import HushCrypto
import HushRelayAPI
import Hummingbird

/// `GET /v1/socket` with `Authorization: Bearer <token>` upgrades to a
/// WebSocket that pushes new envelopes of the token's mailbox and carries
/// ephemeral envelopes between connected contacts. The upgrade is
/// `RelayHTTPChannel`'s and the socket `RelaySocketHandler`'s; here are the
/// plain GET's answer and what the client's frames do.
enum SocketRoute {
    /// Frames refused before the socket is closed as misbehaving.
    static let maxStrikes = 3

    /// Plain GETs of the socket path (no upgrade) say what is wrong.
    static func addFallback(to router: Router<RelayRequestContext>, core: RelayCore) {
        router.get("/v1/socket") { request, _ -> Response in
            _ = try await core.authenticate(request)
            throw RelayError.badRequest("this endpoint needs a WebSocket upgrade")
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
