import Foundation
import HushKeystore
import HushMessenger
import HushProtocol
import HushRelayClient
import HushStore

/// Creating an account and opening it: the composition root of a client.
public enum Account {
    /// Builds a new identity in `home`: the data directory, a keystore sealed
    /// under a passphrase asked for here, and an empty encrypted database; with
    /// `relay`, registers it there too. A failed registration does not undo the
    /// account: it is reported in `NewAccount.registrationError`.
    public static func create(in home: AccountHome, name: String?, relay: String?, kdfCost: String?,
                              replacingExisting force: Bool) async throws -> NewAccount {
        let keystore = home.keystore
        // Refuse before asking for a passphrase that would not be used.
        if keystore.exists && !force { throw KeystoreError.identityExists(path: keystore.path) }
        let name = try name.map { name throws(MessengerError) in try Messenger.checkedDisplayName(name) }
        let cost = try KeyDerivationCost.resolve(option: kdfCost, environment: home.environment)
        try home.directory.create()
        let passphrase = try home.passphraseSource.read(prompt: "New passphrase: ", confirm: true)
        let contents = KeystoreContents.generate(createdAt: UInt64(time(nil)))
        try keystore.create(contents, passphrase: passphrase, cost: cost, force: force)
        // The old database (if any) was keyed by the old keystore and is
        // unreadable now: remove it with its WAL before creating the new one.
        home.removeDatabaseFiles()
        let store = try home.createStore(contents)
        try store.settings.set(SettingsRepository.Name.displayName, to: name)
        try store.settings.set(SettingsRepository.Name.sharedDisplayName, to: name)
        try store.settings.set(SettingsRepository.Name.relayURL, to: relay)
        try home.directory.checkPermissions()
        let identity = try IdentityKeyPair(seed: contents.identitySeed)
        var registrationError: (any Error)?
        if let relay {
            let messenger = Messenger(identity: identity, store: store,
                                      transport: RelayClientTransport(client: RelayClient(baseURL: relay)))
            do { try await messenger.register() } catch { registrationError = error }
        }
        return NewAccount(home: home.path, address: identity.address.description,
                          fingerprint: IdentityFingerprint.of(publicKey: contents.identityKeyPair().publicKey.rawRepresentation), database: home.databasePath,
                          kdf: cost.description, registrationError: registrationError)
    }

    /// Unlocks the keystore, opens the store and connects the pipeline to the
    /// relay recorded at creation (or `relayOverride`, which is remembered).
    /// Front ends that only read local data pass `offline: true` and skip the
    /// HTTP stack (its event loop costs a one-shot command tens of milliseconds).
    public static func open(_ home: AccountHome, relayOverride: String? = nil, offline: Bool = false) throws -> MessagingClient {
        let contents = try home.unlock()
        let store = try home.openStore(contents)
        let identity = try IdentityKeyPair(seed: contents.identitySeed)
        if let relayOverride { try store.settings.set(SettingsRepository.Name.relayURL, to: relayOverride) }
        let relayURL = try store.settings.value(SettingsRepository.Name.relayURL)
        let noRelay = NoRelayTransport(reason: "no relay configured: run `hush register --relay URL`")
        let transport: any RelayTransport = offline ? noRelay : relayURL.map { RelayClientTransport(client: RelayClient(baseURL: $0)) } ?? noRelay
        let messenger = Messenger(identity: identity, store: store, transport: transport,
                                  attachmentDirectory: home.directory.file(AccountHome.attachmentDirectoryName))
        return MessagingClient(home: home, identity: identity, messenger: messenger, relayURL: relayURL)
    }
}
