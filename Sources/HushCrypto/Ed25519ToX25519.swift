import CSodium

// The birational map from Ed25519 (twisted Edwards) to X25519 (Montgomery),
// as libsodium's crypto_sign_ed25519_{pk,sk}_to_curve25519. Hush derives each
// user's X25519 identity agreement key this way, so the one long-term secret
// is the Ed25519 seed and anyone holding an address can compute the agreement
// key without a second signed key (see docs/PROTOCOL.md, "Identity").

extension Ed25519.PublicKey {
    /// The X25519 public key of the same secret scalar. Fails for keys
    /// libsodium refuses to map (small order, non-canonical encodings).
    public func agreementKey() throws(CryptoError) -> X25519.PublicKey {
        Sodium.ensureInitialised()
        var out = [UInt8](repeating: 0, count: X25519.keyLength)
        let status = crypto_sign_ed25519_pk_to_curve25519(&out, rawRepresentation)
        guard status == 0 else { throw .invalidKey }
        return try X25519.PublicKey(rawRepresentation: out)
    }
}

extension Ed25519.PrivateKey {
    /// The X25519 private key: the clamped first half of SHA-512(seed), the
    /// same scalar Ed25519 signs with. Stored like the seed it comes from.
    public func agreementKey() -> X25519.PrivateKey {
        Sodium.ensureInitialised()
        // libsodium's sk_to_curve25519 reads the 64-byte seed || public key form.
        let expanded = SecureBytes(count: Int(crypto_sign_SECRETKEYBYTES), storage: seed.storage)
        expanded.withUnsafeMutableBytes { e in
            seed.withUnsafeBytes { s in e.baseAddress!.copyMemory(from: s.baseAddress!, byteCount: s.count) }
            publicKey.rawRepresentation.withUnsafeBytes { p in
                (e.baseAddress! + Ed25519.seedLength).copyMemory(from: p.baseAddress!, byteCount: p.count)
            }
        }
        let scalar = SecureBytes(count: X25519.keyLength, storage: seed.storage)
        scalar.withUnsafeMutableBytes { out in
            expanded.withUnsafeBytes { e in
                _ = crypto_sign_ed25519_sk_to_curve25519(out.bindMemory(to: UInt8.self).baseAddress!,
                                                         e.bindMemory(to: UInt8.self).baseAddress!)
            }
        }
        // A clamped scalar always has a public key; the force is an invariant.
        return try! X25519.PrivateKey(rawRepresentation: scalar)
    }
}
