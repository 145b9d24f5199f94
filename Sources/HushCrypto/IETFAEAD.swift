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

    /// Seals into `out` (exactly message + tag bytes). Call `checkLengths` first.
    @usableFromInline
    func seal(_ message: UnsafeRawBufferPointer, associatedData ad: UnsafeRawBufferPointer, key: SecureBytes, nonce: [UInt8],
              into out: UnsafeMutableRawBufferPointer) {
        precondition(out.count == message.count + tagLength, "AEAD output buffer has the wrong size")
        Sodium.ensureInitialised()
        key.withUnsafeBytes { k in
            _ = encrypt(out.bindMemory(to: UInt8.self).baseAddress!, nil,
                        message.bindMemory(to: UInt8.self).baseAddress, UInt64(message.count),
                        ad.bindMemory(to: UInt8.self).baseAddress, UInt64(ad.count),
                        nil, nonce, k.bindMemory(to: UInt8.self).baseAddress!)
        }
    }

    /// Opens into `out` (exactly sealed - tag bytes); false for any failure,
    /// in which case libsodium has zeroed `out`. Call `checkLengths` first.
    @usableFromInline
    func open(_ sealed: UnsafeRawBufferPointer, associatedData ad: UnsafeRawBufferPointer, key: SecureBytes, nonce: [UInt8],
              into out: UnsafeMutableRawBufferPointer) -> Bool {
        guard sealed.count >= tagLength, out.count == sealed.count - tagLength else { return false }
        Sodium.ensureInitialised()
        return key.withUnsafeBytes { k in
            decrypt(out.bindMemory(to: UInt8.self).baseAddress, nil, nil,
                    sealed.bindMemory(to: UInt8.self).baseAddress!, UInt64(sealed.count),
                    ad.bindMemory(to: UInt8.self).baseAddress, UInt64(ad.count),
                    nonce, k.bindMemory(to: UInt8.self).baseAddress!) == 0
        }
    }
}

extension Array where Element == UInt8 {
    /// Makes the array exactly `count` bytes long, keeping its storage when
    /// it is already that size (the steady state of a reused buffer).
    @inlinable
    mutating func resizeForAEAD(to count: Int) {
        if self.count > count {
            removeLast(self.count - count)
        } else if self.count < count {
            append(contentsOf: repeatElement(0, count: count - self.count))
        }
    }
}

extension IETFAEAD {
    /// The generic entry points both AEAD types expose. `@inlinable` so the
    /// caller's module specialises them (measured: unspecialised generics cost
    /// about 8% at 1 KiB).
    @inlinable
    func seal<P: ContiguousByteStorage, A: ContiguousByteStorage>(
        _ plaintext: P, key: SecureBytes, nonce: [UInt8], associatedData: A
    ) throws(CryptoError) -> [UInt8] {
        try checkLengths(key: key, nonce: nonce)
        return plaintext.withUnsafeBytes { message in
            associatedData.withUnsafeBytes { ad in seal(message, associatedData: ad, key: key, nonce: nonce) }
        }
    }

    /// Any failure, including input shorter than a tag, is `authenticationFailed`.
    @inlinable
    func open<C: ContiguousByteStorage, A: ContiguousByteStorage>(
        _ ciphertext: C, key: SecureBytes, nonce: [UInt8], associatedData: A
    ) throws(CryptoError) -> [UInt8] {
        try checkLengths(key: key, nonce: nonce)
        let opened = ciphertext.withUnsafeBytes { sealed in
            associatedData.withUnsafeBytes { ad in open(sealed, associatedData: ad, key: key, nonce: nonce) }
        }
        guard let opened else { throw .authenticationFailed }
        return opened
    }
}
