import CSodium

/// The shared calling convention of libsodium's IETF AEADs: both
/// ChaCha20-Poly1305 (12-byte nonce) and XChaCha20-Poly1305 (24-byte nonce)
/// take the same arguments, so one driver checks lengths and moves bytes for both.
struct IETFAEAD: Sendable {
    typealias Encrypt = @convention(c) (
        UnsafeMutablePointer<UInt8>, UnsafeMutablePointer<UInt64>?,
        UnsafePointer<UInt8>?, UInt64, UnsafePointer<UInt8>?, UInt64,
        UnsafePointer<UInt8>?, UnsafePointer<UInt8>, UnsafePointer<UInt8>) -> Int32
    typealias Decrypt = @convention(c) (
        UnsafeMutablePointer<UInt8>?, UnsafeMutablePointer<UInt64>?, UnsafeMutablePointer<UInt8>?,
        UnsafePointer<UInt8>, UInt64, UnsafePointer<UInt8>?, UInt64,
        UnsafePointer<UInt8>, UnsafePointer<UInt8>) -> Int32

    let name: String
    let keyLength: Int
    let nonceLength: Int
    let tagLength: Int
    let encrypt: Encrypt
    let decrypt: Decrypt

    func seal<P: ContiguousByteStorage, A: ContiguousByteStorage>(
        _ plaintext: P, key: SecureBytes, nonce: [UInt8], associatedData: A
    ) throws(CryptoError) -> [UInt8] {
        try requireLength(key.count, keyLength, "\(name) key")
        try requireLength(nonce.count, nonceLength, "\(name) nonce")
        Sodium.ensureInitialised()
        return plaintext.withUnsafeBytes { message in
            associatedData.withUnsafeBytes { ad in
                key.withUnsafeBytes { k in
                    [UInt8](unsafeUninitializedCapacity: message.count + tagLength) { out, written in
                        var produced: UInt64 = 0
                        _ = encrypt(out.baseAddress!, &produced,
                                    message.bindMemory(to: UInt8.self).baseAddress, UInt64(message.count),
                                    ad.bindMemory(to: UInt8.self).baseAddress, UInt64(ad.count),
                                    nil, nonce, k.bindMemory(to: UInt8.self).baseAddress!)
                        written = Int(produced)
                    }
                }
            }
        }
    }

    /// Any failure, including input shorter than a tag, is `authenticationFailed`.
    func open<C: ContiguousByteStorage, A: ContiguousByteStorage>(
        _ ciphertext: C, key: SecureBytes, nonce: [UInt8], associatedData: A
    ) throws(CryptoError) -> [UInt8] {
        try requireLength(key.count, keyLength, "\(name) key")
        try requireLength(nonce.count, nonceLength, "\(name) nonce")
        Sodium.ensureInitialised()
        let result: [UInt8]? = ciphertext.withUnsafeBytes { sealed in
            guard sealed.count >= tagLength else { return nil }
            return associatedData.withUnsafeBytes { ad in
                key.withUnsafeBytes { k in
                    var status: Int32 = -1
                    let plain = [UInt8](unsafeUninitializedCapacity: sealed.count - tagLength) { out, written in
                        var produced: UInt64 = 0
                        status = decrypt(out.baseAddress, &produced, nil,
                                         sealed.bindMemory(to: UInt8.self).baseAddress!, UInt64(sealed.count),
                                         ad.bindMemory(to: UInt8.self).baseAddress, UInt64(ad.count),
                                         nonce, k.bindMemory(to: UInt8.self).baseAddress!)
                        written = status == 0 ? Int(produced) : 0
                    }
                    return status == 0 ? plain : nil
                }
            }
        }
        guard let result else { throw .authenticationFailed }
        return result
    }
}
