import CSodium

/// libsodium's `randombytes_buf_deterministic`: the ChaCha20 keystream under a
/// 32-byte key, so the same key always gives the same bytes. Reproducible test
/// data and benchmark inputs are built on it (HushTesting's `DeterministicRandom`);
/// it lives here only because HushCrypto is the one module that calls libsodium.
/// Never a source of real keys: whoever knows the key knows every byte.
public enum SeededKeystream {
    public static let keyLength = Int(randombytes_SEEDBYTES)

    /// Fills `buffer` with the keystream of `key` (exactly `keyLength` bytes).
    public static func fill(_ buffer: UnsafeMutableRawBufferPointer, key: [UInt8]) {
        precondition(key.count == keyLength, "a seeded keystream takes a \(keyLength)-byte key")
        guard let base = buffer.baseAddress, buffer.count > 0 else { return }
        Sodium.ensureInitialised()
        key.withUnsafeBufferPointer { randombytes_buf_deterministic(base, buffer.count, $0.baseAddress!) }
    }
}
