import CSodium

// Ratchet chain steps compute several HMACs of one-byte messages under the
// same chain key (message key 0x01, next chain key 0x02, header nonce 0x03).
// Keying HMAC costs two SHA-256 compressions; doing it once and copying the
// keyed state saves a third of the work on the hot path.
extension HMACSHA256 {
    /// Writes HMAC(key, [constants[i]]) into `outputs[i]` for each i. Every
    /// output buffer must hold at least 32 bytes.
    public static func authenticateSingleBytes(
        _ constants: [UInt8], key: UnsafeRawBufferPointer, into outputs: [UnsafeMutableRawBufferPointer]
    ) {
        precondition(constants.count == outputs.count, "one output per constant")
        Sodium.ensureInitialised()
        var keyed = crypto_auth_hmacsha256_state()
        key.withNonNullBaseAddress { k in
            _ = crypto_auth_hmacsha256_init(&keyed, k.assumingMemoryBound(to: UInt8.self), key.count)
        }
        for (constant, output) in zip(constants, outputs) {
            precondition(output.count >= outputLength, "HMAC output buffer too small")
            var state = keyed
            var byte = constant
            crypto_auth_hmacsha256_update(&state, &byte, 1)
            crypto_auth_hmacsha256_final(&state, output.bindMemory(to: UInt8.self).baseAddress!)
            withUnsafeMutableBytes(of: &state) { ConstantTime.wipe($0) }
        }
        withUnsafeMutableBytes(of: &keyed) { ConstantTime.wipe($0) }
    }
}
