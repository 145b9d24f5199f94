import CSodium

/// Direct libsodium calls with caller-provided buffers and no checks, copies
/// or wrappers: the baseline HushBench measures the Hush API against. It lives
/// in the benchmark, not in HushCrypto, so no product ships it; the benchmark is
/// therefore the one place besides HushCrypto that imports libsodium, and only
/// to measure it. Nothing here validates lengths.
enum RawSodiumBaseline {
    static func initialise() { precondition(sodium_init() >= 0, "libsodium failed to initialise") }

    /// crypto_aead_xchacha20poly1305_ietf_encrypt into `out` (message + 16 bytes).
    @inline(__always)
    static func xChaCha20Poly1305Seal(
        out: UnsafeMutablePointer<UInt8>, message: UnsafePointer<UInt8>, messageLength: Int,
        ad: UnsafePointer<UInt8>, adLength: Int, nonce: UnsafePointer<UInt8>, key: UnsafePointer<UInt8>
    ) -> Int32 {
        crypto_aead_xchacha20poly1305_ietf_encrypt(out, nil, message, UInt64(messageLength), ad, UInt64(adLength), nil, nonce, key)
    }

    /// crypto_aead_xchacha20poly1305_ietf_decrypt into `out` (sealed - 16 bytes).
    @inline(__always)
    static func xChaCha20Poly1305Open(
        out: UnsafeMutablePointer<UInt8>, sealed: UnsafePointer<UInt8>, sealedLength: Int,
        ad: UnsafePointer<UInt8>, adLength: Int, nonce: UnsafePointer<UInt8>, key: UnsafePointer<UInt8>
    ) -> Int32 {
        crypto_aead_xchacha20poly1305_ietf_decrypt(out, nil, nil, sealed, UInt64(sealedLength), ad, UInt64(adLength), nonce, key)
    }

    /// crypto_scalarmult (X25519) into a 32-byte `out`.
    @inline(__always)
    static func x25519(out: UnsafeMutablePointer<UInt8>, scalar: UnsafePointer<UInt8>, point: UnsafePointer<UInt8>) -> Int32 {
        crypto_scalarmult(out, scalar, point)
    }

    /// crypto_sign_seed_keypair: 32-byte public key and 64-byte secret key from a 32-byte seed.
    static func ed25519Keypair(publicKey: UnsafeMutablePointer<UInt8>, secretKey: UnsafeMutablePointer<UInt8>, seed: UnsafePointer<UInt8>) -> Int32 {
        crypto_sign_seed_keypair(publicKey, secretKey, seed)
    }

    /// crypto_sign_detached into a 64-byte `signature`.
    @inline(__always)
    static func ed25519Sign(
        signature: UnsafeMutablePointer<UInt8>, message: UnsafePointer<UInt8>, messageLength: Int, secretKey: UnsafePointer<UInt8>
    ) -> Int32 {
        crypto_sign_detached(signature, nil, message, UInt64(messageLength), secretKey)
    }

    /// crypto_sign_verify_detached.
    @inline(__always)
    static func ed25519Verify(
        signature: UnsafePointer<UInt8>, message: UnsafePointer<UInt8>, messageLength: Int, publicKey: UnsafePointer<UInt8>
    ) -> Int32 {
        crypto_sign_verify_detached(signature, message, UInt64(messageLength), publicKey)
    }

    /// HKDF-SHA256 written straight on libsodium's HMAC state, as a C
    /// programmer would: extract, then expand block by block into `out`.
    static func hkdfSHA256(
        out: UnsafeMutablePointer<UInt8>, outLength: Int,
        ikm: UnsafePointer<UInt8>, ikmLength: Int, salt: UnsafePointer<UInt8>, saltLength: Int,
        info: UnsafePointer<UInt8>, infoLength: Int
    ) {
        var prk = (UInt64(0), UInt64(0), UInt64(0), UInt64(0))
        var block = (UInt64(0), UInt64(0), UInt64(0), UInt64(0))
        var state = crypto_auth_hmacsha256_state()
        withUnsafeMutableBytes(of: &prk) { prkBytes in
            withUnsafeMutableBytes(of: &block) { blockBytes in
                let p = prkBytes.baseAddress!.assumingMemoryBound(to: UInt8.self)
                let t = blockBytes.baseAddress!.assumingMemoryBound(to: UInt8.self)
                crypto_auth_hmacsha256_init(&state, salt, saltLength)
                crypto_auth_hmacsha256_update(&state, ikm, UInt64(ikmLength))
                crypto_auth_hmacsha256_final(&state, p)
                var written = 0
                var counter: UInt8 = 1
                while written < outLength {
                    crypto_auth_hmacsha256_init(&state, p, 32)
                    if counter > 1 { crypto_auth_hmacsha256_update(&state, t, 32) }
                    crypto_auth_hmacsha256_update(&state, info, UInt64(infoLength))
                    crypto_auth_hmacsha256_update(&state, &counter, 1)
                    crypto_auth_hmacsha256_final(&state, t)
                    let take = min(32, outLength - written)
                    (out + written).update(from: t, count: take)
                    written += take
                    counter &+= 1
                }
                sodium_memzero(prkBytes.baseAddress!, 32)
                sodium_memzero(blockBytes.baseAddress!, 32)
            }
        }
        sodium_memzero(&state, MemoryLayout<crypto_auth_hmacsha256_state>.size)
    }

    /// crypto_pwhash with Argon2id 1.3.
    static func argon2id(
        out: UnsafeMutablePointer<UInt8>, outLength: Int, passphrase: UnsafePointer<CChar>, passphraseLength: Int,
        salt: UnsafePointer<UInt8>, operations: UInt64, memoryBytes: Int
    ) -> Int32 {
        crypto_pwhash(out, UInt64(outLength), passphrase, UInt64(passphraseLength), salt, operations, memoryBytes, crypto_pwhash_ALG_ARGON2ID13)
    }
}
