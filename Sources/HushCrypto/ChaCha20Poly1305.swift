import CSodium

/// ChaCha20-Poly1305 as in RFC 8439 (12-byte nonce). Hush's own formats use
/// XChaCha20-Poly1305; this exists so that the vector runner can check the
/// underlying construction against Project Wycheproof.
public enum ChaCha20Poly1305 {
    public static let keyLength = Int(crypto_aead_chacha20poly1305_ietf_KEYBYTES)
    public static let nonceLength = Int(crypto_aead_chacha20poly1305_ietf_NPUBBYTES)
    public static let tagLength = Int(crypto_aead_chacha20poly1305_ietf_ABYTES)

    @usableFromInline
    static let aead = IETFAEAD(
        name: "ChaCha20-Poly1305", keyLength: keyLength, nonceLength: nonceLength, tagLength: tagLength,
        encrypt: crypto_aead_chacha20poly1305_ietf_encrypt,
        decrypt: crypto_aead_chacha20poly1305_ietf_decrypt)

    @inlinable
    public static func seal<P: ContiguousByteStorage, A: ContiguousByteStorage>(
        _ plaintext: P, key: SecureBytes, nonce: [UInt8], associatedData: A
    ) throws(CryptoError) -> [UInt8] {
        try aead.seal(plaintext, key: key, nonce: nonce, associatedData: associatedData)
    }

    @inlinable
    public static func open<C: ContiguousByteStorage, A: ContiguousByteStorage>(
        _ ciphertext: C, key: SecureBytes, nonce: [UInt8], associatedData: A
    ) throws(CryptoError) -> [UInt8] {
        try aead.open(ciphertext, key: key, nonce: nonce, associatedData: associatedData)
    }
}
