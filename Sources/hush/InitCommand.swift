import ArgumentParser
import Glibc
import HushKeystore
import HushMessenger
import HushProtocol
import HushRelayClient
import HushStore

struct InitCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "init",
        abstract: "Create a new identity: the data directory, the keystore and the encrypted database.",
        discussion: """
            Creates the data directory (0700), a keystore holding a fresh Ed25519 identity seed and a \
            random database key, sealed under your passphrase with Argon2id and XChaCha20-Poly1305, and \
            the SQLCipher database messages.db. Prints your identity key.

            The passphrase is asked twice on the terminal (no echo), or read from --passphrase-file or \
            HUSH_PASSPHRASE. An existing identity is never replaced without --force.

            With --relay, init also registers the new identity with that relay: it publishes your \
            identity key and signed prekeys (never a private key). Without it nothing is sent anywhere; \
            `hush register --relay URL` can do it later.

            Examples:
              hush init --name alice
              hush init --home /tmp/alice --passphrase-file ~/.alice-pass --kdf-cost interactive
              HUSH_PASSPHRASE=secret hush init --home /tmp/bob --json
            """)

    @OptionGroup var global: GlobalOptions
    @OptionGroup var kdf: KDFOptions

    @Option(help: "A display name kept in the local settings.")
    var name: String?

    @Option(help: ArgumentHelp("The relay to register with (and use from now on).", valueName: "URL"))
    var relay: String?

    @Flag(help: "Replace an existing identity. The old identity and its messages become unreadable for good.")
    var force = false

    func validate() throws {
        if let name, name.trimmingCharacters(in: .whitespaces).isEmpty {
            throw ValidationError("--name must not be empty")
        }
        if let relay, !(relay.hasPrefix("http://") || relay.hasPrefix("https://")) {
            throw ValidationError("--relay must be an http:// or https:// URL")
        }
    }

    func run() async throws {
        try await reportingErrors {
            let context = try HomeContext(global)
            let keystore = context.keystore
            // Refuse before asking for a passphrase that would not be used.
            if keystore.exists && !force { throw KeystoreError.identityExists(path: keystore.path) }
            let cost = try KeyDerivationCost.resolve(option: kdf.kdfCost, environment: context.environment)
            try context.directory.create()
            let passphrase = try context.passphraseSource.read(prompt: "New passphrase: ", confirm: true)
            let contents = KeystoreContents.generate(createdAt: UInt64(time(nil)))
            try keystore.create(contents, passphrase: passphrase, cost: cost, force: force)
            // The old database (if any) was keyed by the old keystore and is
            // unreadable now: remove it with its WAL before creating the new one.
            for suffix in ["", "-wal", "-shm"] { unlink(context.directory.databasePath + suffix) }
            let store = try context.createStore(contents)
            try store.settings.set(SettingsRepository.Name.displayName, to: name)
            try store.settings.set(SettingsRepository.Name.relayURL, to: relay)
            try context.directory.checkPermissions()
            let identity = try IdentityKeyPair(seed: contents.identitySeed)
            var registrationError: (any Error)?
            if let relay {
                let messenger = Messenger(identity: identity, store: store,
                                          transport: RelayClientTransport(client: RelayClient(baseURL: relay)))
                do { try await messenger.register() } catch { registrationError = error }
            }

            let fingerprint = identityFingerprint(contents)
            if global.json {
                var object: [String: Any] = ["home": context.directory.path, "identityKey": fingerprint.replacingOccurrences(of: " ", with: ""),
                                             "address": identity.address.description,
                                             "database": context.directory.databasePath, "kdf": cost.description,
                                             "registered": relay != nil && registrationError == nil]
                if let name { object["name"] = name }
                if let relay { object["relay"] = relay }
                try printJSON(object)
            } else {
                print("Created a new identity in \(context.directory.path)")
                print("Address:      \(identity.address)")
                print("Identity key: \(fingerprint)")
                if let relay, registrationError == nil { print("Registered with the relay \(relay).") }
                print("Keep your passphrase safe: without it the keystore and messages cannot be recovered.")
            }
            if let registrationError {
                printError("the identity was created, but registering with the relay failed: \(registrationError); run `hush register` when the relay is reachable")
                throw ExitCode(ExitStatus.relayUnavailable.rawValue)
            }
        }
    }
}
