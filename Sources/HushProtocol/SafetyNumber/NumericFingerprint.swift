import HushCrypto

/// Signal's numeric fingerprint (libsignal rust/protocol/src/fingerprint.rs),
/// generic over the key bytes and stable id so libsignal's own vectors run
/// unchanged:
///
///     H_0 = SHA-512(0x00 0x00 || key || stable id || key)
///     H_i = SHA-512(H_{i-1} || key),  i = 1 … iterations − 1
///
/// The first 30 bytes of the result, read as six 5-byte big-endian integers
/// each reduced mod 100 000, give 30 digits per side.
public enum NumericFingerprint {
    /// Signal's (and Hush's) iteration count.
    public static let iterations = 5_200
    public static let iterationBounds = 2...1_000_000
    /// The version the hash input starts with (two bytes, 0x0000).
    static let hashVersion: [UInt8] = [0x00, 0x00]

    /// The 64-byte iterated hash of one side.
    public static func hash(key: [UInt8], stableID: [UInt8], iterations: Int = iterations) throws(ProtocolError) -> [UInt8] {
        guard iterationBounds.contains(iterations) else { throw .limitExceeded(what: "fingerprint iterations") }
        var hasher = SHA512.Hasher()
        hasher.update(hashVersion)
        hasher.update(key)
        hasher.update(stableID)
        hasher.update(key)
        var digest = hasher.finalize()
        var block = [UInt8](repeating: 0, count: SHA512.outputLength + key.count)
        for _ in 1..<iterations {
            block.replaceSubrange(0..<SHA512.outputLength, with: digest)
            block.replaceSubrange(SHA512.outputLength..., with: key)
            digest = SHA512.hash(block)
        }
        return digest
    }

    /// 30 decimal digits of one side.
    public static func digits(_ hash: [UInt8]) -> String {
        precondition(hash.count >= 30)
        var text = ""
        for chunk in 0..<6 {
            var value: UInt64 = 0
            for byte in hash[(chunk * 5)..<(chunk * 5 + 5)] { value = value << 8 | UInt64(byte) }
            let number = String(value % 100_000)
            text += String(repeating: "0", count: 5 - number.count) + number
        }
        return text
    }
}
