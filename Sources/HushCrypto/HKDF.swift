/// HKDF with SHA-256 (RFC 5869), built on HMAC-SHA256 because libsodium
/// 1.0.18 has no HKDF of its own.
public enum HKDF {
    public static let hashLength = HMACSHA256.outputLength
    /// RFC 5869: L <= 255 * HashLen.
    public static let maximumOutputLength = 255 * hashLength

    /// HKDF-Extract: PRK = HMAC(salt, IKM). An empty salt acts as HashLen zero
    /// bytes, as the RFC requires (HMAC pads short keys with zeros).
    public static func extract<S: ContiguousByteStorage, I: ContiguousByteStorage>(salt: S, inputKeyMaterial: I) -> SecureBytes {
        HMACSHA256.deriveKey(from: inputKeyMaterial, key: salt)
    }

    /// HKDF-Expand: T(1) || T(2) || … truncated to `length` bytes.
    public static func expand<P: ContiguousByteStorage, I: ContiguousByteStorage>(
        pseudoRandomKey: P, info: I, length: Int
    ) throws(CryptoError) -> SecureBytes {
        guard length >= 0, length <= maximumOutputLength else {
            throw .parametersOutOfBounds("HKDF output length \(length) outside 0...\(maximumOutputLength) bytes (255 × 32)")
        }
        let output = SecureBytes(count: length)
        guard length > 0 else { return output }
        // block = T(i-1) || info || i, reused across rounds and wiped at the end.
        let infoCount = info.withUnsafeBytes { $0.count }
        let block = SecureBytes(count: hashLength + infoCount + 1)
        let t = SecureBytes(count: hashLength)
        var written = 0
        var counter: UInt8 = 1
        pseudoRandomKey.withUnsafeBytes { prk in
            block.withUnsafeMutableBytes { blockBytes in
                t.withUnsafeMutableBytes { tBytes in
                    output.withUnsafeMutableBytes { out in
                        while written < length {
                            let previous = counter == 1 ? 0 : hashLength
                            var cursor = 0
                            if previous > 0 {
                                blockBytes.baseAddress!.copyMemory(from: tBytes.baseAddress!, byteCount: hashLength)
                                cursor = hashLength
                            }
                            info.withUnsafeBytes { i in
                                if i.count > 0 {
                                    (blockBytes.baseAddress! + cursor).copyMemory(from: i.baseAddress!, byteCount: i.count)
                                }
                            }
                            cursor += infoCount
                            blockBytes[cursor] = counter
                            cursor += 1
                            HMACSHA256.authenticate(UnsafeRawBufferPointer(rebasing: blockBytes[..<cursor]), key: prk, into: tBytes)
                            let take = min(hashLength, length - written)
                            (out.baseAddress! + written).copyMemory(from: tBytes.baseAddress!, byteCount: take)
                            written += take
                            counter &+= 1
                        }
                    }
                }
            }
        }
        return output
    }

    /// Extract then expand.
    public static func deriveKey<I: ContiguousByteStorage, S: ContiguousByteStorage, N: ContiguousByteStorage>(
        inputKeyMaterial: I, salt: S, info: N, length: Int
    ) throws(CryptoError) -> SecureBytes {
        let prk = extract(salt: salt, inputKeyMaterial: inputKeyMaterial)
        return try expand(pseudoRandomKey: prk, info: info, length: length)
    }
}
