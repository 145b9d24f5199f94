import ArgumentParser
import HushKeystore

struct PassphraseCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "passphrase",
        abstract: "Manage the passphrase that protects the keystore.",
        subcommands: [ChangePassphraseCommand.self])
}

struct ChangePassphraseCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "change",
        abstract: "Re-wrap the keystore under a new passphrase (the database is not touched).",
        discussion: """
            Unlocks the keystore with the current passphrase, then seals the same secrets under the new \
            one with a fresh salt, replacing the file atomically. The Argon2id cost stays as it was \
            unless --kdf-cost (or HUSH_KDF_COST) chooses another.

            The current passphrase comes from the terminal, --passphrase-file or HUSH_PASSPHRASE; the \
            new one from the terminal (asked twice), --new-passphrase-file or HUSH_NEW_PASSPHRASE.

            Examples:
              hush passphrase change
              hush passphrase change --passphrase-file old.txt --new-passphrase-file new.txt
            """)

    @OptionGroup var global: GlobalOptions
    @OptionGroup var kdf: KDFOptions

    @Option(help: ArgumentHelp("Read the new passphrase from the first line of FILE.", valueName: "FILE"))
    var newPassphraseFile: String?

    func run() throws {
        try reportingErrors {
            let context = try HomeContext(global)
            let keystore = context.keystore
            guard keystore.exists else { throw KeystoreError.noIdentity(home: context.directory.path) }
            let current = try keystore.header().cost
            let cost = kdf.kdfCost != nil || context.environment[KeyDerivationCost.environmentVariable] != nil
                ? try KeyDerivationCost.resolve(option: kdf.kdfCost, environment: context.environment) : current
            let old = try context.passphraseSource.read(prompt: "Current passphrase: ")
            // Check the old passphrase before asking for a new one.
            _ = try keystore.unlock(passphrase: old)
            let newSource = PassphraseSource.resolve(file: newPassphraseFile, environment: context.environment,
                                                     variable: PassphraseSource.newPassphraseEnvironmentVariable)
            let new = try newSource.read(prompt: "New passphrase: ", confirm: true)
            try keystore.changePassphrase(from: old, to: new, cost: cost)
            if global.json {
                try printJSON(["changed": true, "kdf": cost.description])
            } else {
                print("Passphrase changed. The old passphrase no longer opens the keystore.")
            }
        }
    }
}
