import CSodium

/// XChaCha20-Poly1305 (IETF construction, draft-irtf-cfrg-xchacha): a 24-byte
/// nonce, long enough to draw at random for every message.
public enum XChaCha20Poly1305 {
    public static let keyLength = Int(crypto_aead_xchacha20poly1305_ietf_KEYBYTES)
    public static let nonceLength = Int(crypto_aead_xchacha20poly1305_ietf_NPUBBYTES)
    public static let tagLength = Int(crypto_aead_xchacha20poly1305_ietf_ABYTES)

    @usableFromInline
    static let aead = IETFAEAD(
        name: "XChaCha20-Poly1305", keyLength: keyLength, nonceLength: nonceLength, tagLength: tagLength,
        encrypt: crypto_aead_xchacha20poly1305_ietf_encrypt,
        decrypt: crypto_aead_xchacha20poly1305_ietf_decrypt)

    /// Encrypts under a caller-given nonce; returns ciphertext || tag.
    /// The caller guarantees the nonce is never reused with this key.
    @inlinable
    public static func seal<P: ContiguousByteStorage, A: ContiguousByteStorage>(
        _ plaintext: P, key: SecureBytes, nonce: [UInt8], associatedData: A
    ) throws(CryptoError) -> [UInt8] {
        try aead.seal(plaintext, key: key, nonce: nonce, associatedData: associatedData)
    }

    /// Decrypts ciphertext || tag. Any failure is `authenticationFailed`.
    @inlinable
    public static func open<C: ContiguousByteStorage, A: ContiguousByteStorage>(
        _ ciphertext: C, key: SecureBytes, nonce: [UInt8], associatedData: A
    ) throws(CryptoError) -> [UInt8] {
        try aead.open(ciphertext, key: key, nonce: nonce, associatedData: associatedData)
    }

    /// Like `seal`, but writes ciphertext || tag into `output`, resized to
    /// fit: a caller that reuses one buffer pays for no allocation.
    @inlinable
    public static func seal<P: ContiguousByteStorage, A: ContiguousByteStorage>(
        _ plaintext: P, key: SecureBytes, nonce: [UInt8], associatedData: A, into output: inout [UInt8]
    ) throws(CryptoError) {
        try aead.checkLengths(key: key, nonce: nonce)
        plaintext.withUnsafeBytes { message in
            associatedData.withUnsafeBytes { ad in
                output.resizeForAEAD(to: message.count + tagLength)
                output.withUnsafeMutableBytes { aead.seal(message, associatedData: ad, key: key, nonce: nonce, into: $0) }
            }
        }
    }

    /// Like `open`, but writes the plaintext into `output`, resized to fit.
    /// On failure `output` is left empty.
    @inlinable
    public static func open<C: ContiguousByteStorage, A: ContiguousByteStorage>(
        _ ciphertext: C, key: SecureBytes, nonce: [UInt8], associatedData: A, into output: inout [UInt8]
    ) throws(CryptoError) {
        try aead.checkLengths(key: key, nonce: nonce)
        let opened = ciphertext.withUnsafeBytes { sealed in
            associatedData.withUnsafeBytes { ad in
                guard sealed.count >= tagLength else { return false }
                output.resizeForAEAD(to: sealed.count - tagLength)
                return output.withUnsafeMutableBytes { aead.open(sealed, associatedData: ad, key: key, nonce: nonce, into: $0) }
            }
        }
        guard opened else {
            output.removeAll(keepingCapacity: true)
            throw .authenticationFailed
        }
    }

    /// Encrypts under a fresh random nonce; returns nonce || ciphertext || tag.
    public static func sealCombined<P: ContiguousByteStorage, A: ContiguousByteStorage>(
        _ plaintext: P, key: SecureBytes, associatedData: A, using source: any RandomSource = SystemRandom()
    ) throws(CryptoError) -> [UInt8] {
        let nonce = source.bytes(nonceLength)
        return try nonce + seal(plaintext, key: key, nonce: nonce, associatedData: associatedData)
    }

    /// Opens nonce || ciphertext || tag as made by `sealCombined`.
    public static func openCombined<A: ContiguousByteStorage>(
        _ combined: [UInt8], key: SecureBytes, associatedData: A
    ) throws(CryptoError) -> [UInt8] {
        guard combined.count >= nonceLength + tagLength else { throw .authenticationFailed }
        let nonce = Array(combined[..<nonceLength])
        return try open(combined[nonceLength...], key: key, nonce: nonce, associatedData: associatedData)
    }
}
