import ArgumentParser
import Foundation
import HushKit

struct PassphraseCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "passphrase",
        abstract: "Manage the passphrase that protects the keystore.",
        subcommands: [ChangePassphraseCommand.self])
}

struct ChangePassphraseCommand: AsyncParsableCommand {
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

    func run() async throws {
        try await reportingErrors {
            let environment = ProcessInfo.processInfo.environment
            // A cost named but unknown is refused before any passphrase is asked.
            // (An empty option or variable names none, as `resolve` reads it.)
            let chosenCost = !(kdf.kdfCost ?? "").isEmpty || !(environment[KeyDerivationCost.environmentVariable] ?? "").isEmpty
                ? try KeyDerivationCost.resolve(option: kdf.kdfCost, environment: environment) : nil
            // Checks the old passphrase (asked again after a typo on a terminal) before asking for a new
            // one; only the keystore is read and rewritten, never the database.
            let (directory, current) = try await global.unlocking(prompt: "Current passphrase: ", environment: environment) { directory, keys in
                try await HushAccount.checkKeys(keys, in: directory)
                return directory
            }
            let newSource = PassphraseSource.resolve(file: newPassphraseFile, environment: environment,
                                                     variable: PassphraseSource.newPassphraseEnvironmentVariable)
            var passphrase = try newSource.read(prompt: "New passphrase: ", confirm: true, secret: .newPassphrase)
            let new = try chosenCost.map { $0.keys(passphrase: passphrase) }
                ?? KeyProvider.passphrase(bytes: passphrase, costOf: HushAccount.keystoreDetails(in: directory))
            passphrase.wipe()
            try await HushAccount.changeKeys(in: directory, from: current, to: new)
            if global.json {
                try printJSON(["changed": true, "kdf": try HushAccount.keystoreDetails(in: directory).keyDerivation])
            } else {
                print("Passphrase changed. The old passphrase no longer opens the keystore.")
            }
        }
    }
}
