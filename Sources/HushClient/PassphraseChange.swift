import HushKeystore

extension Account {
    /// Re-seals the keystore under a new passphrase (the database is not
    /// touched). The Argon2id cost stays unless `kdfCost` (or HUSH_KDF_COST)
    /// names another; returns the cost used.
    public static func changePassphrase(_ home: AccountHome, newPassphraseFile: String?, kdfCost: String?) throws -> String {
        let keystore = home.keystore
        guard keystore.exists else { throw KeystoreError.noIdentity(home: home.path) }
        let current = try keystore.header().cost
        let cost = kdfCost != nil || home.environment[KeyDerivationCost.environmentVariable] != nil
            ? try KeyDerivationCost.resolve(option: kdfCost, environment: home.environment) : current
        // Checks the old passphrase (asked again after a typo on a terminal) before asking for a new one.
        let old = try home.readPassphrase(prompt: "Current passphrase: ").passphrase
        let newSource = PassphraseSource.resolve(file: newPassphraseFile, environment: home.environment,
                                                 variable: PassphraseSource.newPassphraseEnvironmentVariable)
        let new = try newSource.read(prompt: "New passphrase: ", confirm: true)
        try keystore.changePassphrase(from: old, to: new, cost: cost)
        return cost.description
    }
}
