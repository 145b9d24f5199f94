import HushCrypto

/// A user's private identity: the 32-byte Ed25519 seed is the one long-term
/// secret (the keystore stores exactly it); the signing key and the X25519
/// agreement key are both computed from it.
public struct IdentityKeyPair: Sendable, CustomStringConvertible {
    public static let seedLength = Ed25519.seedLength

    public let signingKey: Ed25519.PrivateKey
    /// X25519 form of the same scalar (birational map), for agreement.
    public let agreementKey: X25519.PrivateKey
    public let publicKey: IdentityKey

    /// Restores an identity from its seed (kept in guarded memory by the caller).
    public init(seed: SecureBytes) throws(ProtocolError) {
        do { signingKey = try Ed25519.PrivateKey(seed: seed) } catch { throw .malformed(what: "identity seed (expected \(IdentityKeyPair.seedLength) bytes)") }
        agreementKey = signingKey.agreementKey()
        publicKey = IdentityKey(signingKey.publicKey)
    }

    /// A new identity. Production callers pass `SystemRandom()` and `.guarded`.
    public static func generate(using source: any RandomSource = SystemRandom(), storage: SecureBytes.Storage = .guarded) -> IdentityKeyPair {
        let seed = SecureBytes(randomCount: seedLength, using: source, storage: storage)
        return try! IdentityKeyPair(seed: seed)
    }

    /// The seed, for the keystore to seal. Never log it.
    public var seed: SecureBytes { signingKey.seed }

    public var address: HushAddress { publicKey.address }

    public var description: String { "IdentityKeyPair(redacted, \(address))" }
}
