import ArgumentParser

/// Options every command that touches the data directory shares.
struct GlobalOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("The data directory (default: $HUSH_HOME, else ~/.hush).", valueName: "DIR"))
    var home: String?

    @Option(name: .long, help: ArgumentHelp(
        "Read the passphrase from the first line of FILE instead of the terminal. HUSH_PASSPHRASE also works, for scripts and tests, but is the weakest option: the environment leaks more easily than a file.",
        valueName: "FILE"))
    var passphraseFile: String?

    @Flag(name: .long, help: "Print machine-readable JSON on stdout.")
    var json = false
}

/// The key-derivation cost for a new keystore.
struct KDFOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp(
        "Argon2id cost for the new keystore: interactive, moderate (default) or sensitive. HUSH_KDF_COST sets it too; the demo uses interactive.",
        valueName: "LEVEL"))
    var kdfCost: String?
}
