import CSodium

// Pointer-based XChaCha20-Poly1305 for hot paths (the ratchet's per-message
// keys): the key is lent from memory the caller owns and wipes (a stack
// temporary or a chain-key buffer), output goes into a buffer the caller
// already has, and in-place operation (plaintext and output at the same
// address) is allowed, as libsodium documents. Same construction as `seal`/`open`.
extension XChaCha20Poly1305 {
    /// Writes ciphertext || tag of `plaintext` to the start of `output`
    /// (at least `plaintext.count + tagLength` bytes).
    public static func seal(
        _ plaintext: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer, nonce: UnsafeRawBufferPointer,
        associatedData: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer
    ) throws(CryptoError) {
        try requireLength(key.count, keyLength, "XChaCha20-Poly1305 key")
        try requireLength(nonce.count, nonceLength, "XChaCha20-Poly1305 nonce")
        guard output.count >= plaintext.count + tagLength else {
            throw .invalidLength(what: "XChaCha20-Poly1305 output", expected: plaintext.count + tagLength, actual: output.count)
        }
        Sodium.ensureInitialised()
        plaintext.withNonNullBaseAddress { m in
            associatedData.withNonNullBaseAddress { ad in
                _ = crypto_aead_xchacha20poly1305_ietf_encrypt(
                    output.bindMemory(to: UInt8.self).baseAddress!, nil,
                    m.assumingMemoryBound(to: UInt8.self), UInt64(plaintext.count),
                    ad.assumingMemoryBound(to: UInt8.self), UInt64(associatedData.count),
                    nil, nonce.bindMemory(to: UInt8.self).baseAddress!, key.bindMemory(to: UInt8.self).baseAddress!)
            }
        }
    }

    /// Decrypts ciphertext || tag into the start of `output` (at least
    /// `ciphertext.count - tagLength` bytes). Any failure is `authenticationFailed`,
    /// and then `output` holds nothing of the plaintext.
    public static func open(
        _ ciphertext: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer, nonce: UnsafeRawBufferPointer,
        associatedData: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer
    ) throws(CryptoError) {
        try requireLength(key.count, keyLength, "XChaCha20-Poly1305 key")
        try requireLength(nonce.count, nonceLength, "XChaCha20-Poly1305 nonce")
        guard ciphertext.count >= tagLength, output.count >= ciphertext.count - tagLength else { throw .authenticationFailed }
        Sodium.ensureInitialised()
        let status = associatedData.withNonNullBaseAddress { ad in
            output.withNonNullMutableBaseAddress { out in
                crypto_aead_xchacha20poly1305_ietf_decrypt(
                    out.assumingMemoryBound(to: UInt8.self), nil, nil,
                    ciphertext.bindMemory(to: UInt8.self).baseAddress!, UInt64(ciphertext.count),
                    ad.assumingMemoryBound(to: UInt8.self), UInt64(associatedData.count),
                    nonce.bindMemory(to: UInt8.self).baseAddress!, key.bindMemory(to: UInt8.self).baseAddress!)
            }
        }
        guard status == 0 else { throw .authenticationFailed }
    }
}

extension UnsafeMutableRawBufferPointer {
    @inline(__always)
    func withNonNullMutableBaseAddress<R>(_ body: (UnsafeMutableRawPointer) throws -> R) rethrows -> R {
        if let base = baseAddress { return try body(base) }
        var placeholder: UInt8 = 0
        return try withUnsafeMutablePointer(to: &placeholder) { try body(UnsafeMutableRawPointer($0)) }
    }
}
