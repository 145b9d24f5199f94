import HushCrypto
import HushProtocol
import HushStore

/// How many one-time prekeys of each kind to publish, and when to top up.
public enum PrekeyPolicy {
    public static let batchSize = 50
    public static let refillBelow = 20
    /// How far a restored home's one-time prekey ids jump past the archive's
    /// highest (`Prekeys.publish(renewing:)`): the home the backup came from
    /// would need 20,000 refills after the backup to reach them.
    public static let restoredIdGap: Int64 = 1_000_000
}

/// Our prekeys: generated here, private halves kept in the store, public
/// halves published at the relay, and topped up as first contacts use them.
final class Prekeys {
    private let dependencies: MessengerDependencies
    private let relay: RelaySession
    private var store: MessageStore { dependencies.store }
    /// Whether prekey counts at the relay may have dropped (a first-contact
    /// message used one-time prekeys, or this run has not checked yet).
    var mayNeedRefill = true

    init(_ dependencies: MessengerDependencies, relay: RelaySession) {
        self.dependencies = dependencies
        self.relay = relay
    }

    /// Publishes the identity with the signed X25519 prekey, the ML-KEM
    /// last-resort prekey (both kept when they exist already, unless
    /// `renewing`) and a fresh batch of `oneTimeCount` one-time prekeys of
    /// each kind, keeping the private halves, and records the registration's
    /// timestamp (`HomeRegistration`).
    ///
    /// `renewing` is for a home restored from a backup (docs/PROTOCOL.md
    /// §19.4): the home the backup came from holds the same private prekeys
    /// and may still be running, so the restored one publishes a new signed
    /// and last-resort prekey, and one-time prekeys numbered far above any
    /// that home could have published since the backup (ids are what a first
    /// message names, so two homes' one-time prekeys must never share one).
    func publish(oneTimeCount: Int = PrekeyPolicy.batchSize, renewing: Bool = false,
                 isolation: isolated (any Actor)? = #isolation) async throws {
        if let replacedAt = dependencies.homeReplacedAt() {
            // Taking the key back would replace the other home in turn, whose sessions the contacts now hold.
            throw MessengerError.homeReplaced(at: replacedAt, unconfirmedSent: 0)
        }
        let identity = dependencies.transportIdentity, random = dependencies.random
        var created: [PrivatePrekey] = []
        let existingSigned = try store.prekeys.highestId(kind: PrekeyKind.signedX25519.storeName)
        let existingLastResort = try store.prekeys.highestId(kind: PrekeyKind.lastResortKEM.storeName)
        let signed = try (renewing ? nil : existingSigned.flatMap { try load(.signedX25519, $0) })
            ?? PrivatePrekey.generate(kind: .signedX25519, id: Self.nextId(after: existingSigned), identity: identity, using: random)
        let lastResort = try (renewing ? nil : existingLastResort.flatMap { try load(.lastResortKEM, $0) })
            ?? PrivatePrekey.generate(kind: .lastResortKEM, id: Self.nextId(after: existingLastResort), identity: identity, using: random)
        if existingSigned == nil || renewing { created += [signed, lastResort] }
        let oneTime = try generateOneTime(count: oneTimeCount, skipping: renewing ? PrekeyPolicy.restoredIdGap : 0)
        created += oneTime
        try keep(created)
        // Before the relay can hold this registration, this home's record is put past it: another
        // process of this home that compares while the answer is on its way (its socket closed by this
        // registration) must not take it for another home's. The exact time replaces it below.
        try store.write { store in
            try store.settings.set(SettingsRepository.Name.registeredAt,
                                   to: String(dependencies.clock.now() + HomeRegistration.inFlightMarginMilliseconds))
        }
        // Registration carries its own proof of possession: no session token yet.
        let registeredAt: Int64
        do {
            registeredAt = try await dependencies.transport.register(identity: identity, signedPrekey: signed.signed,
                                                                     lastResortKEMPrekey: lastResort.signed, oneTimePrekeys: oneTime.map(\.signed))
        } catch {
            throw MessengerError.relay(error)
        }
        try store.write { store in try store.settings.set(SettingsRepository.Name.registeredAt, to: String(registeredAt)) }
    }

    private static func nextId(after highest: Int64?) -> UInt32 {
        UInt32(clamping: (highest ?? 0) + 1)
    }

    /// Uploads more one-time prekeys when the relay holds fewer than
    /// `PrekeyPolicy.refillBelow`, if first contacts may have used some.
    func replenishIfNeeded(isolation: isolated (any Actor)? = #isolation) async {
        guard mayNeedRefill, (try? await replenish()) != nil else { return }
        mayNeedRefill = false
    }

    /// The private half of one of our prekeys, or `missingLocalState`: an
    /// envelope naming a prekey we no longer have is ours to fix, not the
    /// envelope's.
    func privatePrekey(_ kind: PrekeyKind, id: UInt32) throws -> PrivatePrekey {
        guard let prekey = try load(kind, Int64(id)) else {
            throw MessengerError.missingLocalState("the first message names a \(kind) prekey (\(id)) we no longer have")
        }
        return prekey
    }

    /// Deletes one-time prekeys a first message used. Joins the caller's transaction.
    func consume(_ used: [(PrekeyKind, UInt32)]) throws {
        for (kind, id) in used { try store.prekeys.delete(kind: kind.storeName, id: Int64(id)) }
        if !used.isEmpty { mayNeedRefill = true }
    }

    private func replenish(isolation: isolated (any Actor)? = #isolation) async throws {
        let transport = dependencies.transport
        let counts = try await relay.call { () async throws(DeliveryFailure) in try await transport.prekeyCounts() }
        guard min(counts.x25519, counts.kem) < PrekeyPolicy.refillBelow else { return }
        let fresh = try generateOneTime()
        try keep(fresh)
        _ = try await relay.call { () async throws(DeliveryFailure) in try await transport.uploadPrekeys(fresh.map(\.signed)) }
    }

    private func keep(_ prekeys: [PrivatePrekey]) throws {
        let now = dependencies.clock.now()
        try store.withinWrite { store in
            for prekey in prekeys {
                try store.prekeys.save(kind: prekey.kind.storeName, id: Int64(prekey.id), privateKey: prekey.serialized(),
                                       publicKey: prekey.signed.publicKey, at: now)
            }
        }
    }

    private func generateOneTime(count: Int = PrekeyPolicy.batchSize, skipping gap: Int64 = 0) throws -> [PrivatePrekey] {
        precondition((0...PrekeyPolicy.batchSize).contains(count), "one-time prekeys are published in batches of at most \(PrekeyPolicy.batchSize)")
        var result: [PrivatePrekey] = []
        for kind in [PrekeyKind.oneTimeX25519, .oneTimeKEM] {
            let start = UInt32(clamping: (try store.prekeys.highestId(kind: kind.storeName) ?? 0) + 1 + gap)
            for offset in 0..<UInt32(count) {
                result.append(try PrivatePrekey.generate(kind: kind, id: start + offset, identity: dependencies.transportIdentity,
                                                         using: dependencies.random))
            }
        }
        return result
    }

    private func load(_ kind: PrekeyKind, _ id: Int64) throws -> PrivatePrekey? {
        guard let stored = try store.prekeys.prekey(kind: kind.storeName, id: id) else { return nil }
        return try PrivatePrekey(serialized: stored.privateKey, identity: dependencies.transportIdentity.publicKey)
    }
}

extension PrekeyKind {
    /// The name the store files private prekeys under.
    var storeName: String { String(describing: self) }
}
