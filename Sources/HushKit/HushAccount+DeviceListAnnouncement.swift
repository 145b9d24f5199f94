import HushKeystore
import HushMessenger
import HushProtocol
import HushRelayClient
import HushStore

/// After a link or a revocation: the account's new device list goes to
/// every contact (docs/PROTOCOL.md §20.11, §20.13), sealed on the session
/// with each and posted at once, so their clients show the change (and
/// `hush verify` the new fingerprint) without waiting for the next message.
extension HushAccount {
    /// Seals the list the store now holds as current for every accepted
    /// contact that lacks it, and posts them through `relay`. Best effort:
    /// the link or revocation is done whatever happens here. What cannot be
    /// posted now waits in the outbox for the next sync, and a contact it
    /// could not be sealed for gets the list before the next thing sealed
    /// to it. Returns how many contacts it was queued for (nil: it failed).
    /// After a revocation (`rekeyingGroups`), the small groups this account
    /// is an admin of also get a new state, after the list, and the admins
    /// of the others are asked for one (§20.14): `rekey` says how that went
    /// (nil when not asked for, or when it failed as a whole).
    static func announceDeviceList(of identity: IdentityKeyPair, device: LocalDevice?, store: sending MessageStore, relay: String,
                                   rekeyingGroups: Bool = false)
        async -> (contacts: Int?, rekey: (rekeyed: Int, asked: Int?, failed: [String])?) {
        let messenger = Messenger(identity: identity, device: device, store: store,
                                  transport: RelayClientTransport(client: RelayClient(baseURL: relay)))
        let announced = try? await messenger.announceDeviceList()
        let rekey = rekeyingGroups ? try? await messenger.rekeyGroupsAfterRevocation() : nil
        return (announced, rekey)
    }

    /// This home as a linked device (its key and certificate), or nil for
    /// the account's first device: what `init` gives its messenger.
    static func linkedDevice(_ contents: KeystoreContents, store: MessageStore, account: IdentityKeyPair) throws -> LocalDevice? {
        guard try store.settings.value(linkedDeviceSetting) != nil else { return nil }
        return try contents.additional[KeystoreContents.EntryType.deviceSeed].map { seed in try LocalDevice(seed: seed, account: account) }
    }
}
