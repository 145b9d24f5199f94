import HushCrypto

/// The public identity key as 16 groups of 4 hex digits, for reading aloud.
public enum IdentityFingerprint {
    public static func of(publicKey: [UInt8]) -> String {
        let hex = Array(Hex.encode(publicKey))
        return stride(from: 0, to: hex.count, by: 4).map { String(hex[$0..<min($0 + 4, hex.count)]) }.joined(separator: " ")
    }
}
