import HushCrypto
import HushRelayAPI
import Hummingbird

/// `POST /v1/auth/challenge` then `POST /v1/auth/token`: a signed nonce buys a
/// short-lived bearer token. Each nonce is deleted on first use, so a replayed
/// or expired answer fails the same way as a forged one (401).
enum AuthRoutes {
    static func add(to router: Router<RelayRequestContext>, core: RelayCore) {
        router.post("/v1/auth/challenge") { request, context in
            try core.limit(core.limits.authPerAddress, context.remoteAddress)
            let body = try await JSONBody.decode(ChallengeRequest.self, from: request, limit: 1024)
            let identity = try IdentityRoutes.parseIdentity(body.identityKey.bytes)
            guard try await core.storage.identities.isRegistered(identity: identity.rawRepresentation) else { throw RelayError.notFound("identity") }
            let nonce = core.random.bytes(RelayLimits.challengeNonceLength)
            let expiresAt = core.now + core.configuration.challengeLifetimeSeconds * 1000
            try await core.storage.auth.storeChallenge(nonce: nonce, identity: identity.rawRepresentation, expiresAt: expiresAt)
            return try JSONBody.response(ChallengeResponse(nonce: Base64Bytes(nonce), expiresAt: expiresAt))
        }

        router.post("/v1/auth/token") { request, context in
            try core.limit(core.limits.authPerAddress, context.remoteAddress)
            let body = try await JSONBody.decode(TokenRequest.self, from: request, limit: 1024)
            let identity = try IdentityRoutes.parseIdentity(body.identityKey.bytes)
            guard body.nonce.bytes.count == RelayLimits.challengeNonceLength else { throw RelayError.malformed("nonce length") }
            // Consume first: whatever the signature, this nonce is spent.
            let fresh = try await core.storage.auth.consumeChallenge(nonce: body.nonce.bytes, identity: identity.rawRepresentation, now: core.now)
            let origin = try checkOrigin(body.origin, core: core)
            // A client that pinned this relay's key names the pin; one that
            // trusted a CA-issued certificate for the origin names none. A
            // signature naming any other key verifies under neither.
            let pins: [[UInt8]?] = core.configuration.keyPin.map { [$0, nil] } ?? [nil]
            let signed = pins.contains { pin in
                identity.signingKey.isValidSignature(body.signature.bytes, for: AuthChallenge.message(
                    identityKey: identity.rawRepresentation, nonce: body.nonce.bytes, origin: origin, pin: pin))
            }
            guard fresh, signed else {
                throw RelayError.authenticationFailed
            }
            let token = TokenIssuer.make(using: core.random)
            let expiresAt = core.now + core.configuration.tokenLifetimeSeconds * 1000
            try await core.storage.auth.storeToken(hash: TokenIssuer.hash(token), identity: identity.rawRepresentation, expiresAt: expiresAt)
            return try JSONBody.response(TokenResponse(token: token, expiresAt: expiresAt))
        }
    }

    /// The origin the client signed for, when it is one of this relay's; a
    /// missing origin is the old unbound signature, refused with what to do.
    /// Naming the accepted origins tells nothing secret: clients reach them anyway.
    static func checkOrigin(_ claimed: String?, core: RelayCore) throws -> RelayOrigin {
        guard let claimed else {
            throw RelayError.loginRefused("the signature does not name this relay's origin (the old hush/v1 login): update the client")
        }
        // Compared as canonical text: the client canonicalised it before signing.
        let accepted = core.origins.all
        guard let origin = accepted.first(where: { $0.description == claimed }) else {
            let names = accepted.map(\.description).joined(separator: ", ")
            throw RelayError.loginRefused("this signature is for \(claimed.prefix(200)); this relay answers as \(names) (its operator sets them with --origin)")
        }
        return origin
    }
}
