import HushRelayAPI
import Hummingbird

/// `POST /v1/prekeys` (more one-time prekeys) and `GET /v1/prekeys/count`, both authenticated.
enum PrekeyRoutes {
    static func add(to router: Router<RelayRequestContext>, core: RelayCore) {
        router.post("/v1/prekeys") { request, context in
            try core.limit(core.limits.perAddress, context.remoteAddress)
            let grant = try await core.authenticate(request)
            let body = try await JSONBody.decode(UploadPrekeysRequest.self, from: request, limit: RelayLimits.maxRegistrationBodyBytes)
            guard body.oneTimePrekeys.count <= RelayLimits.maxPrekeysPerRequest else {
                throw RelayError.malformed("more than \(RelayLimits.maxPrekeysPerRequest) one-time prekeys")
            }
            let identity = try IdentityRoutes.parseIdentity(grant.identity)
            let prekeys = try body.oneTimePrekeys.map { try IdentityRoutes.verified($0, kinds: [.oneTimeX25519, .oneTimeKEM], by: identity) }
            let counts = try await core.storage.identities.addOneTimePrekeys(identity: grant.identity, prekeys)
            return try JSONBody.response(PrekeyCountResponse(oneTimeX25519: counts.oneTimeX25519, oneTimeKEM: counts.oneTimeKEM))
        }

        router.get("/v1/prekeys/count") { request, context in
            try core.limit(core.limits.perAddress, context.remoteAddress)
            let grant = try await core.authenticate(request)
            let counts = try await core.storage.identities.prekeyCounts(identity: grant.identity)
            return try JSONBody.response(PrekeyCountResponse(oneTimeX25519: counts.oneTimeX25519, oneTimeKEM: counts.oneTimeKEM,
                                                             registeredAt: counts.registeredAt,
                                                             signedPrekey: counts.signedPrekey.map(SignedPrekeyDTO.init)))
        }
    }
}
