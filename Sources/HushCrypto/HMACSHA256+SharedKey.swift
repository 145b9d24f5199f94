import CSodium

// Ratchet chain steps compute several HMACs of one-byte messages under the
// same chain key (message key 0x01, next chain key 0x02, header nonce 0x03).
// Keying HMAC costs two SHA-256 compressions; doing it once and copying the
// keyed state saves a third of the work on the hot path, and the fixed
// parameter list keeps the step free of heap allocations.
extension HMACSHA256 {
    /// Writes HMAC(key, [c]) for each (constant c, output) pair given. Every
    /// output buffer must hold at least 32 bytes.
    public static func authenticateSingleBytes(
        key: UnsafeRawBufferPointer,
        _ first: (constant: UInt8, output: UnsafeMutableRawBufferPointer),
        _ second: (constant: UInt8, output: UnsafeMutableRawBufferPointer),
        _ third: (constant: UInt8, output: UnsafeMutableRawBufferPointer)? = nil
    ) {
        Sodium.ensureInitialised()
        var keyed = crypto_auth_hmacsha256_state()
        key.withNonNullBaseAddress { k in
            _ = crypto_auth_hmacsha256_init(&keyed, k.assumingMemoryBound(to: UInt8.self), key.count)
        }
        func finish(_ constant: UInt8, _ output: UnsafeMutableRawBufferPointer) {
            precondition(output.count >= outputLength, "HMAC output buffer too small")
            var state = keyed
            var byte = constant
            crypto_auth_hmacsha256_update(&state, &byte, 1)
            crypto_auth_hmacsha256_final(&state, output.bindMemory(to: UInt8.self).baseAddress!)
            withUnsafeMutableBytes(of: &state) { ConstantTime.wipe($0) }
        }
        finish(first.constant, first.output)
        finish(second.constant, second.output)
        if let third { finish(third.constant, third.output) }
        withUnsafeMutableBytes(of: &keyed) { ConstantTime.wipe($0) }
    }
}
