import HushCrypto

/// The key an application supplies instead of a passphrase (KDF identifier 2):
/// 32 random bytes the application keeps in the platform keychain.
///
/// The key-encryption key is HKDF-SHA256(key, header salt, `derivationInfo`),
/// 32 bytes. There is no Argon2id: stretching protects a guessable secret,
/// and 256 random bits are not guessable, so it would only cost time. For the
/// same reason the key must never be derived from a PIN or a password.
public enum KeystoreApplicationKey {
    /// The only accepted length, in bytes.
    public static let length = 32
    /// HKDF's info string, fixed so the derived key serves this use alone.
    public static let derivationInfo: [UInt8] = Array("hush keystore application key v1".utf8)

    /// Refuses a key of any length but 32 bytes before it is used.
    static func check(_ applicationKey: SecureBytes) throws(KeystoreError) {
        guard applicationKey.count == length else { throw .applicationKeyWrongLength(found: applicationKey.count) }
    }

    /// The 32-byte key that seals the keystore payload.
    static func keyEncryptionKey(_ applicationKey: SecureBytes, salt: [UInt8]) throws(KeystoreError) -> SecureBytes {
        try check(applicationKey)
        do {
            return try HKDF.deriveKey(inputKeyMaterial: applicationKey, salt: salt, info: derivationInfo,
                                      length: XChaCha20Poly1305.keyLength)
        } catch {
            // 32 bytes are far inside HKDF's 8160-byte bound.
            preconditionFailure("HKDF refused a 32-byte output: \(error)")
        }
    }
}
