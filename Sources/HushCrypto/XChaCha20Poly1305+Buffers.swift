import CSodium

// Pointer-based XChaCha20-Poly1305 for hot paths (the ratchet's per-message
// keys): the key is lent from memory the caller owns and wipes (a stack
// temporary or a chain-key buffer), so no heap-allocated secret is created
// per message. Same construction and semantics as `seal`/`open`.
extension XChaCha20Poly1305 {
    /// Appends ciphertext || tag of `plaintext` to `output`.
    public static func seal(
        _ plaintext: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer, nonce: UnsafeRawBufferPointer,
        associatedData: UnsafeRawBufferPointer, appendingTo output: inout [UInt8]
    ) throws(CryptoError) {
        try requireLength(key.count, keyLength, "XChaCha20-Poly1305 key")
        try requireLength(nonce.count, nonceLength, "XChaCha20-Poly1305 nonce")
        Sodium.ensureInitialised()
        let start = output.count
        output.append(contentsOf: repeatElement(0, count: plaintext.count + tagLength))
        output.withUnsafeMutableBufferPointer { out in
            plaintext.withNonNullBaseAddress { m in
                associatedData.withNonNullBaseAddress { ad in
                    _ = crypto_aead_xchacha20poly1305_ietf_encrypt(
                        out.baseAddress! + start, nil,
                        m.assumingMemoryBound(to: UInt8.self), UInt64(plaintext.count),
                        ad.assumingMemoryBound(to: UInt8.self), UInt64(associatedData.count),
                        nil, nonce.bindMemory(to: UInt8.self).baseAddress!,
                        key.bindMemory(to: UInt8.self).baseAddress!)
                }
            }
        }
    }

    /// Decrypts ciphertext || tag into a new array; any failure is `authenticationFailed`.
    public static func open(
        _ ciphertext: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer, nonce: UnsafeRawBufferPointer,
        associatedData: UnsafeRawBufferPointer
    ) throws(CryptoError) -> [UInt8] {
        try requireLength(key.count, keyLength, "XChaCha20-Poly1305 key")
        try requireLength(nonce.count, nonceLength, "XChaCha20-Poly1305 nonce")
        guard ciphertext.count >= tagLength else { throw .authenticationFailed }
        Sodium.ensureInitialised()
        var status: Int32 = -1
        let plain = [UInt8](unsafeUninitializedCapacity: ciphertext.count - tagLength) { out, written in
            associatedData.withNonNullBaseAddress { ad in
                status = crypto_aead_xchacha20poly1305_ietf_decrypt(
                    out.baseAddress, nil, nil,
                    ciphertext.bindMemory(to: UInt8.self).baseAddress!, UInt64(ciphertext.count),
                    ad.assumingMemoryBound(to: UInt8.self), UInt64(associatedData.count),
                    nonce.bindMemory(to: UInt8.self).baseAddress!, key.bindMemory(to: UInt8.self).baseAddress!)
            }
            written = status == 0 ? ciphertext.count - tagLength : 0
        }
        guard status == 0 else { throw .authenticationFailed }
        return plain
    }
}
