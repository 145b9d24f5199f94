import HushCrypto
import Synchronization

/// Identity agreement keys already derived, by identity key. Sealing to a
/// contact needs its X25519 agreement key for every envelope, and the
/// birational map costs a field square root and inversion (about a fifth of
/// a sealed-sender seal+open); the result depends only on public data, so it
/// is kept here, bounded, and needs no wiping.
enum AgreementKeyCache {
    /// More identities than a user talks to; at the bound the cache starts over.
    static let capacity = 4_096

    private static let keys = Mutex<[[UInt8]: X25519.PublicKey]>([:])

    static func agreementKey(for identity: Ed25519.PublicKey) throws(CryptoError) -> X25519.PublicKey {
        let raw = identity.rawRepresentation
        if let known = keys.withLock({ $0[raw] }) { return known }
        let derived = try identity.agreementKey()
        keys.withLock { cache in
            if cache.count >= capacity { cache.removeAll(keepingCapacity: true) }
            cache[raw] = derived
        }
        return derived
    }
}
