import HushKeystore

extension KeystoreError: UserFacingError {
    public var exitCode: Int32 {
        let status: ExitStatus
        switch self {
        case .wrongPassphrase, .wrongApplicationKey: status = .wrongPassphrase
        case .damaged: status = .keystoreDamaged
        case .newerVersion: status = .keystoreTooNew
        case .noIdentity: status = .noIdentity
        case .identityExists: status = .identityExists
        case .badPermissions, .wrongOwner: status = .badPermissions
        case .passphraseUnavailable, .passphraseMismatch: status = .passphraseUnavailable
        case .unknownCost, .io, .applicationKeyWrongLength, .unlockedByApplicationKey, .unlockedByPassphrase: status = .failure
        }
        return status.rawValue
    }

    /// The keystore's words with the `hush` command that helps.
    public var userMessage: String {
        switch self {
        case let .noIdentity(home):
            return "no identity in \(home) yet: run `hush init` first"
        case let .identityExists(path):
            return "an identity already exists at \(path): refusing to overwrite it (use `hush init --force` to replace it, which destroys the old identity and its messages)"
        default:
            return description
        }
    }
}
