/// How an error names a secret `PassphraseSource` reads, and the other ways
/// to give it: a recovery key that cannot be read must not send the user
/// looking for `HUSH_PASSPHRASE`.
struct SecretNaming: Sendable, Equatable {
    /// "passphrase", "new passphrase", "recovery key".
    let noun: String
    /// The option that reads it from a file.
    let fileOption: String
    /// The environment variable that carries it.
    let variable: String

    static let passphrase = SecretNaming(noun: "passphrase", fileOption: "--passphrase-file", variable: "HUSH_PASSPHRASE")
    static let newPassphrase = SecretNaming(noun: "new passphrase", fileOption: "--new-passphrase-file", variable: "HUSH_NEW_PASSPHRASE")
    static let recoveryKey = SecretNaming(noun: "recovery key", fileOption: "--recovery-key-file", variable: "HUSH_RECOVERY_KEY")
}
