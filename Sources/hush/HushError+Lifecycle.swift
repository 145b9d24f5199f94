import HushKit

extension HushError {
    /// How `hush` reports the account's own failures (the keystore, the
    /// database, permissions, whether an account exists, the passphrase):
    /// the exit code a script branches on and the line a person reads, with
    /// the `hush` command that helps. Nil for every other kind.
    var lifecycleReport: (status: ExitStatus, message: String)? {
        switch kind {
        case .noAccount:
            return (.noIdentity, "\(reason): run `hush init` first")
        case .wrongKey:
            // `hush` only ever unlocks with a passphrase.
            return (.wrongPassphrase, "wrong passphrase: the keystore could not be unlocked (check the passphrase, or that the keystore file was not modified)")
        case .damagedKeystore:
            return (.keystoreDamaged, description)
        case .keystoreTooNew:
            return (.keystoreTooNew, description)
        case .unsafePermissions:
            return (.badPermissions, description)
        case .accountExists where reason.hasSuffix("into a new or empty folder"):
            // A restore or a link, which only go into a new or empty folder: `hush init --force` would
            // not help them (found in a walkthrough: it destroyed an identity, and the restore still refused).
            return (.identityExists, description)
        case .accountExists:
            return (.identityExists, "\(reason) (use `hush init --force` to replace it, which destroys the old identity and its messages)")
        case .keyUnavailable:
            return (.passphraseUnavailable, description)
        case .databaseMissing:
            return (.databaseUnusable, description + " To start over with an empty database instead (contacts must then be added again), run `hush doctor --new-database`.")
        case .databaseUnusable:
            return (.databaseUnusable, description)
        case .homeInUse:
            return (.homeInUse, "\(reason): stop it (`hush daemon stop` for a daemon), or wait for it to finish, and try again")
        default:
            return nil
        }
    }
}
