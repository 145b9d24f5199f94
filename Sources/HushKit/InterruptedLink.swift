import Foundation
import HushCrypto
import HushKeystore
import HushProtocol
import HushStore

/// A link that named its new device in a published list and did not finish
/// on this device (docs/PROTOCOL.md §20.6): what `linkDevice` does on the way
/// out when it can (the entry revoked again before the history's end was
/// sent) cannot happen when its process is killed. The link records the entry
/// in the store when the list naming it is kept, and clears the record when
/// it finishes or withdraws; a record found later means the process died in
/// between. The next `linkDevice` withdraws it first, and `devices(in:keys:)`
/// marks the entry meanwhile.
public struct InterruptedLink: Sendable {
    /// The entry the interrupted link added.
    public let device: LinkedDevice
    /// Whether it was revoked again: true when the link stopped before the
    /// history's end was sent (the new device cannot have finished, yet it
    /// was handed the account key). False when the end may have gone: the
    /// new device may be linked, and only its user can tell.
    public let revokedAgain: Bool
    /// The account's new recovery key when the entry was revoked again (the
    /// new device was handed the old one): show it once.
    public let recoveryKey: RecoveryKey?
}

/// The record kept while a link is past the list naming its new device.
struct LinkInProgress: Equatable {
    static let setting = "device.link_in_progress"

    let entry: DeviceID
    /// The history's end was (or may have been) sent.
    let endMayHaveBeenSent: Bool

    var encoded: String { entry.description + (endMayHaveBeenSent ? " end" : " history") }

    init(entry: DeviceID, endMayHaveBeenSent: Bool) {
        self.entry = entry
        self.endMayHaveBeenSent = endMayHaveBeenSent
    }

    init?(_ text: String) {
        let fields = text.split(separator: " ")
        guard fields.count == 2, let bytes = try? Hex.decode(String(fields[0])), let id = try? DeviceID(bytes: bytes),
              ["end", "history"].contains(fields[1]) else { return nil }
        self.init(entry: id, endMayHaveBeenSent: fields[1] == "end")
    }

    static func recorded(in store: MessageStore) throws -> LinkInProgress? {
        try store.settings.value(setting).flatMap(LinkInProgress.init)
    }

    static func record(_ link: LinkInProgress?, in store: MessageStore) throws {
        try store.settings.set(setting, to: link?.encoded)
    }
}

extension HushAccount {
    /// What a link left when its process died after publishing the list
    /// naming its new device (`LinkInProgress`): before the history's end
    /// was sent, the entry is revoked again as `withdrawLink` would have
    /// (a new recovery key, put in `contents` too); after it, the entry
    /// stays and the user is told (only the new device's user can say
    /// whether it finished). Nil when there is nothing to withdraw.
    static func withdrawInterruptedLink(identity: IdentityKeyPair, home: DataDirectory, store: MessageStore, keystore: KeystoreFile,
                                        keys: KeyProvider, contents: inout KeystoreContents, relay: String) async throws -> InterruptedLink? {
        guard let pending = try LinkInProgress.recorded(in: store) else { return nil }
        guard let latest = try store.deviceLists.latest(), let seed = contents.additional[KeystoreContents.EntryType.deviceSeed] else {
            try LinkInProgress.record(nil, in: store)
            return nil
        }
        let list = try DeviceList.decode(latest, account: identity.publicKey)
        let ownKey = try Ed25519.PrivateKey(seed: seed)
        let own = DeviceID(deviceKey: ownKey.publicKey)
        // Revoked meanwhile (by hand, or by another device): nothing is left to do.
        guard let entry = list.entry(pending.entry), entry.isActive, list.entry(own)?.isActive == true else {
            try LinkInProgress.record(nil, in: store)
            return nil
        }
        guard !pending.endMayHaveBeenSent else {
            try LinkInProgress.record(nil, in: store)
            return InterruptedLink(device: LinkedDevice(entry, thisDevice: own), revokedAgain: false, recoveryKey: nil)
        }
        // A connection of its own: the revocation hands its store on to the announcement's tasks.
        let revoking = try MessageStore.openExisting(path: home.databasePath, key: contents.databaseKey)
        let revocation: DeviceRevocation
        do {
            revocation = try await revoke(entry, in: list, by: ownKey, identity: identity, store: revoking, keystore: keystore, keys: keys,
                                          contents: contents, relay: relay)
        } catch {
            let reason = (error as? HushError)?.reason ?? "\(error)"
            throw HushError((error as? HushError)?.kind ?? .other,
                            reason: "an earlier link from this device stopped after the account's device list named '\(entry.name)' and before it had the history, and that entry could not be revoked now (\(reason)); nothing else was done",
                            suggestion: (error as? HushError)?.suggestion ?? "run the command again")
        }
        var additional = contents.additional
        additional[KeystoreContents.EntryType.recoveryKey] = revocation.recoveryKey.bytes
        contents = KeystoreContents(identitySeed: contents.identitySeed, databaseKey: contents.databaseKey, createdAt: contents.createdAt,
                                    additional: additional)
        return InterruptedLink(device: revocation.device, revokedAgain: true, recoveryKey: revocation.recoveryKey)
    }
}
