import CSodium

/// The shared calling convention of libsodium's IETF AEADs: both
/// ChaCha20-Poly1305 (12-byte nonce) and XChaCha20-Poly1305 (24-byte nonce)
/// take the same arguments, so one driver checks lengths and moves bytes for both.
@usableFromInline
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

    /// Length checks, done before the bytes are borrowed. The public
    /// entry points are `@inlinable` generics that borrow the caller's bytes
    /// in the caller's module (so `[UInt8]` arguments cost no runtime generic
    /// dispatch) and then call the non-generic cores below.
    @usableFromInline
    func checkLengths(key: SecureBytes, nonce: [UInt8]) throws(CryptoError) {
        try requireLength(key.count, keyLength, "\(name) key")
        try requireLength(nonce.count, nonceLength, "\(name) nonce")
    }

    /// Returns ciphertext || tag. Call `checkLengths` first.
    @usableFromInline
    func seal(_ message: UnsafeRawBufferPointer, associatedData ad: UnsafeRawBufferPointer, key: SecureBytes, nonce: [UInt8]) -> [UInt8] {
        Sodium.ensureInitialised()
        return key.withUnsafeBytes { k in
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

    /// Returns the plaintext, or nil for any failure (including input
    /// shorter than a tag). Call `checkLengths` first.
    @usableFromInline
    func open(_ sealed: UnsafeRawBufferPointer, associatedData ad: UnsafeRawBufferPointer, key: SecureBytes, nonce: [UInt8]) -> [UInt8]? {
        guard sealed.count >= tagLength else { return nil }
        Sodium.ensureInitialised()
        return key.withUnsafeBytes { k in
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
