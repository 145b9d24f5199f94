import ArgumentParser
import Foundation
import HushKit

struct InitCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "init",
        abstract: "Create a new identity: the data directory, the keystore and the encrypted database.",
        discussion: """
            Creates the data directory (0700), a keystore holding a fresh Ed25519 identity seed, a \
            random database key and a recovery key for backups (printed once: write it down), sealed under your passphrase with Argon2id and XChaCha20-Poly1305, and \
            the SQLCipher database messages.db. Prints your identity key.

            The passphrase is asked twice on the terminal (no echo), or read from --passphrase-file or \
            HUSH_PASSPHRASE. An existing identity is never replaced without --force.

            With --relay, init also registers the new identity with that relay: it publishes your \
            identity key and signed prekeys (never a private key). Without it nothing is sent anywhere; \
            `hush register --relay URL` can do it later.

            With --link CODE (the code `hush device link` printed on a device of the account; - reads it \
            from the terminal), init joins that account instead of making one: both screens show six \
            digits, which you confirm on the other device; then this device gets the account and its \
            whole history, and registers a key of its own at the relay. Nothing is written here unless \
            the link completes. It writes to contacts at once, and what they send reaches it once their \
            clients hold the account's new device list (they get it from the device that linked this one).

            Examples:
              hush init --name alice
              hush init --home /tmp/alice --passphrase-file ~/.alice-pass --kdf-cost interactive
              HUSH_PASSPHRASE=secret hush init --home /tmp/bob --json
              hush init --home ~/.hush --link 04ZK-…   (the code from `hush device link`)
            """)

    @OptionGroup var global: GlobalOptions
    @OptionGroup var kdf: KDFOptions

    @Option(help: "The display name your contacts see (1 to 64 bytes): sealed to each contact you accept, never to a stranger; `hush profile` changes it.")
    var name: String?

    @Option(help: ArgumentHelp("The relay to register with (and use from now on).", valueName: "URL"))
    var relay: String?

    @Flag(help: "Replace an existing identity. The old identity and its messages become unreadable for good.")
    var force = false

    @Option(help: ArgumentHelp("Join an existing account with the code `hush device link` printed there (- reads it from the terminal).",
                               valueName: "CODE"))
    var link: String?

    @Option(help: "With --link: what the account's device list calls this device (1 to 64 bytes; default: the host name).")
    var deviceName: String?

    func validate() throws {
        if link != nil, name != nil || force {
            throw ValidationError("--link joins an account as it is: --name and --force do not go with it")
        }
        if deviceName != nil, link == nil { throw ValidationError("--device-name goes with --link") }
        if let name, name.trimmingCharacters(in: .whitespaces).isEmpty {
            throw ValidationError("--name must not be empty")
        }
        if let relay { try RelayURLRule.check(relay) }
    }

    func run() async throws {
        if let link {
            try await joining(link)
            return
        }
        try await reportingErrors {
            let environment = ProcessInfo.processInfo.environment
            let directory = try global.homeDirectory(environment: environment)
            // Refuse before asking for a passphrase that would not be used.
            if HushAccount.exists(in: directory) && !force {
                throw HushError(.accountExists, reason: "an identity already exists at \(directory)/\(HushAccount.keystoreFileName): refusing to overwrite it")
            }
            let keys = try kdf.newKeystoreKeys(passphraseFile: global.passphraseFile, environment: environment)
            let account: HushAccount
            do {
                account = try await HushAccount.create(in: directory, keys: keys, displayName: name, relayURL: relay,
                                                       replacingExisting: force)
            } catch let error as HushError where error.kind == .invalidInput {
                throw ValidationError(error.description) // a display name that is too long
            }
            defer { account.close() }
            var registrationError: HushError?
            if relay != nil {
                do { try await account.register() } catch let error as HushError { registrationError = error }
            }
            let kdf = try HushAccount.keystoreDetails(in: directory).keyDerivation
            let database = directory + "/" + HushAccount.databaseFileName
            if global.json {
                var object: [String: Any] = ["home": directory, "identityKey": account.fingerprint.replacingOccurrences(of: " ", with: ""),
                                             "address": account.address, "database": database, "kdf": kdf,
                                             "registered": relay != nil && registrationError == nil]
                if let recoveryKey = account.recoveryKey { object["recoveryKey"] = recoveryKey.displayText }
                if let name { object["name"] = name }
                if let relay { object["relay"] = relay }
                try printJSON(object)
            } else {
                print("Created a new identity in \(directory)")
                print("Address:      \(account.address)")
                print("Identity key: \(account.fingerprint)")
                if let relay, registrationError == nil { print("Registered with the relay \(relay).") }
                print("Keep your passphrase safe: without it the keystore and messages cannot be recovered.")
                if let recoveryKey = account.recoveryKey {
                    print("")
                    print("Recovery key: \(recoveryKey.displayText)")
                    print("Write this down and keep it apart from this computer: it alone opens your backups")
                    print("(`hush backup create`) and restores this account on a new machine. `hush backup key` shows it again.")
                }
            }
            if let registrationError {
                printError("the identity was created, but registering with the relay failed: \(registrationError); run `hush register` when the relay is reachable")
                throw ExitCode(.relayUnavailable)
            }
        }
    }

    /// `hush init --link CODE`: a new home joined to an existing account (docs/PROTOCOL.md §20.6).
    private func joining(_ given: String) async throws {
        try await reportingErrors {
            let environment = ProcessInfo.processInfo.environment
            let directory = try global.emptyHomeDirectory(environment: environment, filling: "a device is only linked")
            var code = given
            if given == "-" {
                if !global.json { print("Link code: ", terminator: ""); fflush(nil) }
                code = readLine() ?? ""
            }
            // Before the passphrase is asked twice and the relay is called: a typo is said at once.
            try HushAccount.checkLinkCode(code)
            let keys = try kdf.newKeystoreKeys(passphraseFile: global.passphraseFile, environment: environment)
            let json = global.json
            if !json {
                print("Asking the other device through the relay (it must still be showing the code)…")
                fflush(nil)
            }
            let name = deviceName ?? DeviceLinkCommand.hostName(), relay = relay, linkCode = code
            let (summary, account) = try await LinkInterruption().run {
                try await HushAccount.joinByLink(code: linkCode, into: directory, keys: keys, deviceName: name, relayURL: relay) { digits in
                    if json {
                        try? printJSON(["digits": digits])
                    } else {
                        print("Confirm on the other device that it shows: \(digits.prefix(3)) \(digits.dropFirst(3))")
                        print("Waiting for it…")
                    }
                    fflush(nil)
                }
            }
            defer { account.close() }
            let registered = (try? await account.isRegistered()) == true
            let note = "The history was copied, and this device " + (registered ? "has its own key at the relay" : "could not register its key at the relay yet (run `hush register`)")
                + ": it writes to contacts on sessions of its own, and what they send reaches it once their clients hold the account's new device list."
                + " What each device sends shows on the others from their next sync (`hush sync` here starts the sessions between them)."
            if json {
                var object = BackupSummaryOutput.json(summary)
                object["home"] = directory
                object["address"] = account.address
                object["linked"] = true
                object["registered"] = registered
                object["note"] = note
                try printJSON(object)
            } else {
                print("Linked into \(directory) as a device of \(account.address)")
                BackupSummaryOutput.lines(summary).forEach { print($0) }
                print(note)
            }
        }
    }
}
