import HushCrypto
import HushProtocol
import HushStore

/// How many one-time prekeys of each kind to publish, and when to top up.
public enum PrekeyPolicy {
    public static let batchSize = 50
    public static let refillBelow = 20
}

extension Messenger {
    /// Registers this identity with the relay: generates the signed X25519
    /// prekey, the ML-KEM last-resort prekey and a batch of one-time prekeys
    /// of both kinds, keeps their private halves in the store, publishes the
    /// public halves, and registers our delivery credential.
    public func register() async throws {
        let now = clock.now()
        var created: [PrivatePrekey] = []
        let existingSigned = try store.prekeys.highestId(kind: PrekeyKind.signedX25519.storeName)
        let signed = try existingSigned.flatMap { try loadPrekey(.signedX25519, $0) }
            ?? PrivatePrekey.generate(kind: .signedX25519, id: 1, identity: identity, using: random)
        let lastResort = try store.prekeys.highestId(kind: PrekeyKind.lastResortKEM.storeName).flatMap { try loadPrekey(.lastResortKEM, $0) }
            ?? PrivatePrekey.generate(kind: .lastResortKEM, id: 1, identity: identity, using: random)
        if existingSigned == nil { created += [signed, lastResort] }
        let oneTime = try generateOneTimePrekeys()
        created += oneTime
        try store.write { store in
            for prekey in created {
                try store.prekeys.save(kind: prekey.kind.storeName, id: Int64(prekey.id), privateKey: prekey.serialized(),
                                       publicKey: prekey.signed.publicKey, at: now)
            }
        }
        // Registration carries its own proof of possession: no session token yet.
        do {
            try await transport.register(identity: identity, signedPrekey: signed.signed, lastResortKEMPrekey: lastResort.signed,
                                         oneTimePrekeys: oneTime.map(\.signed))
        } catch {
            throw MessengerError.relay(error)
        }
        let credential = try ownDeliveryCredential() ?? {
            let token = random.bytes(ContentLimits.deliveryCredentialLength)
            try store.write { store in try store.settings.set(SettingsRepository.Name.deliveryCredential, to: Hex.encode(token)) }
            return token
        }()
        try await relayCall { () async throws(DeliveryFailure) in
            try await transport.updateDeliveryCredentials(add: [credential], remove: [])
        }
        try store.write { store in try store.settings.set(SettingsRepository.Name.registration, to: "registered") }
    }

    public func isRegistered() throws -> Bool {
        try store.settings.value(SettingsRepository.Name.registration) == "registered"
    }

    /// Uploads more one-time prekeys when the relay holds fewer than `PrekeyPolicy.refillBelow`.
    func replenishPrekeys() async throws {
        let counts = try await relayCall { () async throws(DeliveryFailure) in try await transport.prekeyCounts() }
        guard min(counts.x25519, counts.kem) < PrekeyPolicy.refillBelow else { return }
        let fresh = try generateOneTimePrekeys()
        let now = clock.now()
        try store.write { store in
            for prekey in fresh {
                try store.prekeys.save(kind: prekey.kind.storeName, id: Int64(prekey.id), privateKey: prekey.serialized(),
                                       publicKey: prekey.signed.publicKey, at: now)
            }
        }
        _ = try await relayCall { () async throws(DeliveryFailure) in try await transport.uploadPrekeys(fresh.map(\.signed)) }
    }

    private func generateOneTimePrekeys() throws -> [PrivatePrekey] {
        var result: [PrivatePrekey] = []
        for kind in [PrekeyKind.oneTimeX25519, .oneTimeKEM] {
            let start = UInt32(clamping: (try store.prekeys.highestId(kind: kind.storeName) ?? 0) + 1)
            for offset in 0..<UInt32(PrekeyPolicy.batchSize) {
                result.append(try PrivatePrekey.generate(kind: kind, id: start + offset, identity: identity, using: random))
            }
        }
        return result
    }

    private func loadPrekey(_ kind: PrekeyKind, _ id: Int64) throws -> PrivatePrekey? {
        guard let stored = try store.prekeys.prekey(kind: kind.storeName, id: id) else { return nil }
        return try PrivatePrekey(serialized: stored.privateKey, identity: identity.publicKey)
    }

    func ownDeliveryCredential() throws -> [UInt8]? {
        try store.settings.value(SettingsRepository.Name.deliveryCredential).map { try Hex.decode($0) }
    }

    /// A relay call with re-authentication, its failure as a MessengerError.
    func relayCall<T: Sendable>(_ call: () async throws(DeliveryFailure) -> T) async throws(MessengerError) -> T {
        do { return try await withReauthentication(call) } catch { throw .relay(error) }
    }
}
