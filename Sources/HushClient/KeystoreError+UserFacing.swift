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
}
