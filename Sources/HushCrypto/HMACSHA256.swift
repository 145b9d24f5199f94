import CSodium

/// HMAC-SHA256 (RFC 2104) with a key of any length.
public enum HMACSHA256 {
    public static let outputLength = Int(crypto_auth_hmacsha256_BYTES)

    /// Writes the 32-byte MAC of `message` under `key` into `output`. The
    /// pointer form lets hot paths (ratchet chain steps) derive into memory
    /// they already own and wipe.
    public static func authenticate(
        _ message: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer
    ) {
        precondition(output.count >= outputLength, "HMAC output buffer too small")
        Sodium.ensureInitialised()
        var state = crypto_auth_hmacsha256_state()
        key.withNonNullBaseAddress { k in
            _ = crypto_auth_hmacsha256_init(&state, k.assumingMemoryBound(to: UInt8.self), key.count)
        }
        crypto_auth_hmacsha256_update(&state, message.bindMemory(to: UInt8.self).baseAddress, UInt64(message.count))
        crypto_auth_hmacsha256_final(&state, output.bindMemory(to: UInt8.self).baseAddress!)
        withUnsafeMutableBytes(of: &state) { ConstantTime.wipe($0) }
    }

    /// The MAC as a public value (a tag to send or compare).
    public static func authenticationCode<M: ContiguousByteStorage, K: ContiguousByteStorage>(for message: M, key: K) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: outputLength)
        message.withUnsafeBytes { m in
            key.withUnsafeBytes { k in
                out.withUnsafeMutableBytes { authenticate(m, key: k, into: $0) }
            }
        }
        return out
    }

    /// The MAC as a secret (when it serves as a key).
    public static func deriveKey<M: ContiguousByteStorage, K: ContiguousByteStorage>(from message: M, key: K) -> SecureBytes {
        let out = SecureBytes(count: outputLength)
        message.withUnsafeBytes { m in
            key.withUnsafeBytes { k in
                out.withUnsafeMutableBytes { authenticate(m, key: k, into: $0) }
            }
        }
        return out
    }

    /// Constant-time check of a tag, which may be truncated to `tag.count`
    /// bytes (at least 16: shorter tags are refused as too weak).
    public static func isValid<T: ContiguousByteStorage, M: ContiguousByteStorage, K: ContiguousByteStorage>(
        tag: T, for message: M, key: K
    ) -> Bool {
        let expected = authenticationCode(for: message, key: key)
        return tag.withUnsafeBytes { t in
            guard t.count >= 16, t.count <= outputLength else { return false }
            return expected.withUnsafeBytes { e in
                ConstantTime.equals(t, UnsafeRawBufferPointer(rebasing: e[..<t.count]))
            }
        }
    }
}
