import Foundation
import HushKit

extension GlobalOptions {
    /// The data directory these options name: --home, else HUSH_HOME, else ~/.hush.
    /// In a command the daemon runs, the daemon's directory.
    func homeDirectory(environment: [String: String] = ProcessInfo.processInfo.environment) throws(HushError) -> String {
        if let context = CommandContext.current { return context.home }
        return try HomeDirectory.resolve(home: home, environment: environment)
    }

    /// The data directory for a new home filled from elsewhere (a restore, a
    /// link): refused before anything is asked unless it is new or empty.
    /// `filling` says what would go there ("a backup is only restored").
    func emptyHomeDirectory(environment: [String: String], filling: String) throws(HushError) -> String {
        let directory = try homeDirectory(environment: environment)
        if let entries = try? FileManager.default.contentsOfDirectory(atPath: directory), !entries.isEmpty {
            throw HushError(.accountExists, reason: "\(directory) is not empty: \(filling) into a new or empty folder",
                            suggestion: "give another --home, or move that folder away first")
        }
        return directory
    }

    /// Opens the account ready to use: asks for the passphrase (see
    /// `unlocking`) and opens it with HushKit. `relayOverride` replaces the
    /// relay the account uses, and is remembered.
    ///
    /// In a command the daemon runs for a client, it is the daemon's open
    /// account (no passphrase, no unlock). A directory another process owns
    /// alone is waited for briefly (`HomeOwnerWait`), then refused with who holds it.
    func openAccount(relayOverride: String? = nil) async throws -> HushAccount {
        if let context = CommandContext.current {
            if let relayOverride, relayOverride != context.account.relayURL {
                throw CommandError(.usage, "--relay cannot change the relay of an account a daemon runs: stop it (`hush daemon stop`) first")
            }
            return context.account
        }
        return try await unlocking { directory, keys in
            try await HomeOwnerWait.retrying {
                try await HushAccount.open(in: directory, keys: keys, relayURL: relayOverride)
            }
        }.opened
    }

    /// Closes an account `openAccount` opened, unless it is the daemon's (which outlives the command).
    func finished(with account: HushAccount) {
        if CommandContext.current?.account !== account { account.close() }
    }

    /// Tries a person at a terminal gets at a mistyped passphrase; a script
    /// (HUSH_PASSPHRASE, a passphrase file) gets one, as retrying the same
    /// value cannot help.
    static let terminalPassphraseTries = 3

    /// Checks that the directory holds an account the current user alone can
    /// read (before asking for a passphrase that could not help), reads the
    /// passphrase and hands it to `open`; on a terminal a wrong one is asked
    /// again, up to `terminalPassphraseTries` in all. Returns what `open`
    /// returned with the key that worked (for a passphrase change).
    ///
    /// With HUSH_TIMINGS=1 it says on stderr how long the opening took
    /// (the Argon2id unlock, for `make bench`).
    func unlocking<T>(prompt: String = "Passphrase: ",
                      environment: [String: String] = ProcessInfo.processInfo.environment,
                      _ open: (_ directory: String, _ keys: KeyProvider) async throws -> T) async throws -> (opened: T, keys: KeyProvider) {
        let directory = try homeDirectory(environment: environment)
        guard HushAccount.exists(in: directory) else {
            // A file in the home's place: the check says so ("Not a directory"); "run hush init" would fail the same way.
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), !isDirectory.boolValue {
                try HushAccount.checkPermissions(in: directory)
            }
            throw HushError(.noAccount, reason: "no identity in \(directory) yet")
        }
        try HushAccount.checkPermissions(in: directory)
        try await HomeOwnerWait.untilShared(directory)
        let source = PassphraseSource.resolve(file: passphraseFile, environment: environment)
        var triesLeft = source == .terminal ? Self.terminalPassphraseTries : 1
        var asking = prompt
        var opening = Duration.zero
        while true {
            var passphrase = try source.read(prompt: asking)
            let keys = KeyProvider.passphrase(bytes: passphrase)
            passphrase.wipe()
            let start = ContinuousClock.now
            do {
                let opened = try await open(directory, keys)
                opening += ContinuousClock.now - start
                if environment["HUSH_TIMINGS"] == "1" {
                    let milliseconds = Double(opening.components.seconds) * 1000 + Double(opening.components.attoseconds) / 1e15
                    printError(String(format: "timing: unlock %.2f ms", milliseconds))
                }
                return (opened, keys)
            } catch let error as HushError where error.kind == .wrongKey && triesLeft > 1 {
                opening += ContinuousClock.now - start
                triesLeft -= 1
                // Said on the terminal, where the person is: the prompt itself.
                asking = "Wrong passphrase, try again (\(triesLeft) \(triesLeft == 1 ? "try" : "tries") left). " + prompt
            }
        }
    }
}

/// Prints a JSON object with sorted keys on stdout.
func printJSON(_ object: [String: Any]) throws {
    let data = try JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
    print(String(decoding: data, as: UTF8.self))
}

extension KDFOptions {
    /// The keys of a new keystore (`init`, `init --link`, `backup restore`):
    /// this cost, and a new passphrase asked for twice (or read from
    /// `passphraseFile` / HUSH_PASSPHRASE), wiped once the provider holds it.
    func newKeystoreKeys(passphraseFile: String?, environment: [String: String]) throws -> KeyProvider {
        let cost = try KeyDerivationCost.resolve(option: kdfCost, environment: environment)
        var passphrase = try PassphraseSource.resolve(file: passphraseFile, environment: environment)
            .read(prompt: "New passphrase: ", confirm: true)
        defer { passphrase.wipe() }
        return cost.keys(passphrase: passphrase)
    }
}
