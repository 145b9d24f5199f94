import HushCrypto
import HushProtocol
import HushRelayAPI
import Hummingbird

/// Registration (`POST /v1/identities`) and bundle fetch
/// (`GET /v1/identities/{identity}/bundle`).
enum IdentityRoutes {
    static func add(to router: Router<RelayRequestContext>, core: RelayCore) {
        router.post("/v1/identities") { request, context in
            try core.limit(core.limits.authPerAddress, context.remoteAddress)
            let body = try await JSONBody.decode(RegisterRequest.self, from: request, limit: RelayLimits.maxRegistrationBodyBytes)
            let identity = try parseIdentity(body.identityKey.bytes)
            guard body.oneTimePrekeys.count <= RelayLimits.maxPrekeysPerRequest else {
                throw RelayError.malformed("more than \(RelayLimits.maxPrekeysPerRequest) one-time prekeys")
            }
            // The timestamp is the client's: any Int64. Subtract with overflow
            // reported (a plain `-` traps on Int64.min and kills the relay).
            let skew = UInt64(RelayLimits.registrationClockSkewSeconds) * 1000
            let (difference, overflowed) = body.timestamp.subtractingReportingOverflow(core.now)
            guard !overflowed, difference.magnitude <= skew else {
                throw RelayError.malformed("the registration timestamp is too far from the relay's clock")
            }
            guard identity.signingKey.isValidSignature(body.proof.bytes, for: RegistrationProof.message(for: body)) else {
                throw RelayError.invalidSignature("registration proof")
            }
            let signed = try verified(body.signedPrekey, kinds: [.signedX25519], by: identity)
            let lastResort = try verified(body.lastResortKEMPrekey, kinds: [.lastResortKEM], by: identity)
            let oneTime = try body.oneTimePrekeys.map { try verified($0, kinds: [.oneTimeX25519, .oneTimeKEM], by: identity) }
            let counts = try await core.storage.identities.register(identity: identity.rawRepresentation, signedPrekey: signed,
                                                         lastResortKEMPrekey: lastResort, oneTimePrekeys: oneTime,
                                                         registeredAt: body.timestamp)
            // A home holding a socket learns, as it reconnects, whether this registration was its own.
            core.hub.closeAll(identity: identity.rawRepresentation)
            core.logger.info("identity registered", metadata: ["oneTimeX25519": "\(counts.oneTimeX25519)", "oneTimeKEM": "\(counts.oneTimeKEM)"])
            return try JSONBody.response(RegisterResponse(oneTimeX25519: counts.oneTimeX25519, oneTimeKEM: counts.oneTimeKEM), status: .created)
        }

        router.get("/v1/identities/{identity}/bundle") { _, context in
            try core.limit(core.limits.perAddress, context.remoteAddress)
            let identity = try core.identity(fromPath: context)
            // Beyond the per-target budget the bundle is still served, without
            // one-time prekeys: nobody can drain them, and nobody can stop a
            // newcomer from adding this contact either (the handshake falls
            // back to the signed and last-resort prekeys).
            let withinBudget = core.limits.bundlesPerIdentity.acquire(Hex.encode(identity), nowMilliseconds: core.now) == nil
            guard let bundle = try await core.storage.identities.takeBundle(identity: identity, consumingOneTimePrekeys: withinBudget) else {
                throw RelayError.notFound("identity")
            }
            return try JSONBody.response(PrekeyBundleDTO(bundle))
        }
    }

    static func parseIdentity(_ bytes: [UInt8]) throws -> IdentityKey {
        do { return try IdentityKey(rawRepresentation: bytes) } catch { throw RelayError.malformed("identityKey is not an Ed25519 public key") }
    }

    /// Decodes a prekey, checks its kind, and verifies its signature (422 otherwise).
    static func verified(_ dto: SignedPrekeyDTO, kinds: Set<PrekeyKind>, by identity: IdentityKey) throws -> SignedPrekey {
        let prekey: SignedPrekey
        do { prekey = try dto.prekey() } catch { throw RelayError.malformed("prekey \(dto.id): \(error)") }
        guard kinds.contains(prekey.kind) else { throw RelayError.malformed("prekey \(dto.id) has the wrong kind") }
        do { try prekey.verify(by: identity) } catch { throw RelayError.invalidSignature("prekey \(dto.id)") }
        return prekey
    }
}
