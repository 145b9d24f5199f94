import HushCrypto

extension KeyProvider {
    /// A passphrase stretched at the floor the keystore format accepts
    /// (Argon2id, 1 pass, 8 KiB): SPI for this project's own process tests,
    /// whose few thousand `hush` processes each unlock a keystore. At the
    /// interactive cost those unlocks were about a third of the CPU the tests
    /// spend (64 MiB filled and hashed twice per process). Only a debug build
    /// of `hush` reaches it (`HUSH_KDF_COST=insecure-test-floor`); an account
    /// sealed this way resists no guessing at all.
    @_spi(Testing)
    public static func passphraseAtTestFloor(bytes: [UInt8]) -> KeyProvider {
        KeyProvider(secret: .passphrase(SecureBytes(copying: bytes, storage: .guarded), cost: .insecureTestOnly))
    }
}
