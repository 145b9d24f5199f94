import Foundation
import HushKeystore
import HushMessenger
import HushProtocol
import HushRelayClient
import HushStore

/// Creating an account and opening it: the composition root of a client.
public enum Account {
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
