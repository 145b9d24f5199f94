import ArgumentParser
import HushClient

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
            let cost = try Account.changePassphrase(global.accountHome(), newPassphraseFile: newPassphraseFile, kdfCost: kdf.kdfCost)
            if global.json {
                try printJSON(["changed": true, "kdf": cost])
            } else {
                print("Passphrase changed. The old passphrase no longer opens the keystore.")
            }
        }
    }
}
