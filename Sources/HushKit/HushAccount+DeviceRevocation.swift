import Foundation
import HushCrypto
import HushKeystore
import HushProtocol
import HushRelayClient
import HushStore

/// Revoking a device of the account (docs/PROTOCOL.md §20.14): any active
/// device signs the account's next list with that entry revoked, publishes
/// it in the account's directory, and replaces the recovery key, which the
/// revoked device holds, on every remaining device.
extension HushAccount {
    /// Revokes the device of the account in `directory` (closed: it is held
    /// exclusively meanwhile) that `nameOrID` names: its exact name, or the
    /// start (4 hex digits or more) of its id, as `devices(in:keys:)` lists
    /// them. The next list is published at the account's relay (or
    /// `relayURL`) before it is kept here; then a new recovery key replaces
    /// the old one (in the store, under the list's counter, and in the
    /// keystore) for the backups that follow, and goes to the account's
    /// other active devices after the list. Archives made before still
    /// open with the old key only.
    ///
    /// - Returns: the revoked device, the new recovery key (show it once:
    ///   the user must write it down), and how the contacts and groups were
    ///   told (`DeviceRevocation`).
    /// - Throws: `HushError` of kind `notFound` (no list, or no such device),
    ///   `invalidInput` (ambiguous, this device, already revoked, or this
    ///   device revoked), `notRegistered` (no relay), `relayUnavailable`,
    ///   `other` (the relay holds a newer list), `storage`, or as
    ///   `open(in:keys:)`. Nothing changes unless the list was published.
    public static func revokeDevice(_ nameOrID: String, in directory: String, keys: KeyProvider, relayURL: String? = nil)
        async throws(HushError) -> DeviceRevocation {
        try await translatingErrors {
            let (home, keystore, lock, contents) = try unlockHome(directory, keys: keys, .exclusive)
            defer { lock.release() }
            let identity = try IdentityKeyPair(seed: contents.identitySeed)
            let store = try MessageStore.openExisting(path: home.databasePath, key: contents.databaseKey)
            guard let latest = try store.deviceLists.latest() else {
                throw HushError(.notFound, reason: "this account has no device list: it is one device, with no other to revoke",
                                suggestion: "`hush device list` shows the account's devices")
            }
            guard let seed = contents.additional[KeystoreContents.EntryType.deviceSeed] else { throw noDeviceKeyToSign }
            let ownKey = try Ed25519.PrivateKey(seed: seed)
            let own = DeviceID(deviceKey: ownKey.publicKey)
            let current = try DeviceList.decode(latest, account: identity.publicKey)
            guard current.entry(own)?.isActive == true else {
                throw HushError(.invalidInput, reason: "this device is revoked in the account's device list, so it cannot revoke others",
                                suggestion: "revoke from an active device of the account")
            }
            let target = try device(named: nameOrID, in: current)
            guard target.id != own else {
                throw HushError(.invalidInput, reason: "that is this device", suggestion: "revoke it from another device of the account")
            }
            guard target.isActive else {
                throw HushError(.invalidInput, reason: "that device is already revoked", suggestion: "`hush device list` shows which devices are active")
            }
            guard let relay = try relayURL ?? store.settings.value(SettingsRepository.Name.relayURL), !relay.isEmpty else {
                throw HushError(.notRegistered, reason: "this account has no relay, and a revocation is published at one",
                                suggestion: "give the account's relay with --relay")
            }
            return try await revoke(target, in: current, by: ownKey, identity: identity, store: store, keystore: keystore, keys: keys,
                                    contents: contents, relay: relay)
        }
    }

    /// Revokes `target` of `current` (the list this device holds, in which
    /// `ownKey`'s device is active): the next list signed, published, then
    /// kept with a new recovery key, and announced to contacts and the
    /// account's devices with the groups rekeyed. Shared by `revokeDevice`
    /// and a link that failed after naming its new device (`withdrawLink`).
    static func revoke(_ target: DeviceListEntry, in current: DeviceList, by ownKey: Ed25519.PrivateKey, identity: IdentityKeyPair,
                       store: sending MessageStore, keystore: KeystoreFile, keys: KeyProvider, contents: KeystoreContents,
                       relay: String) async throws -> DeviceRevocation {
        let own = DeviceID(deviceKey: ownKey.publicKey)
        let now = UInt64(Date().timeIntervalSince1970 * 1000)
        // The first device revoked: its entry is marked as the one that kept the account key, which
        // retires that key at every contact (§20.13, §20.14). Only this list carries the mark, so
        // clients that predate it read every list before it.
        let keepsAccountKey = try keepsAccountKey(target, in: current, store: store, identity: identity)
        let next = try DeviceList.sign(account: identity, counter: current.counter + 1, createdAt: now, signer: ownKey,
                                       entries: current.entries.map { entry in
                                           guard entry.id == target.id else { return entry }
                                           return keepsAccountKey ? entry.revoked(at: now).keepingAccountKey() : entry.revoked(at: now)
                                       })
        // Published first: a list kept here but not at the relay would
        // leave contacts who look the account up with the device active.
        try await publish(next, replacing: current, of: identity, store: store, with: RelayClient(baseURL: relay))
        let recoveryKey = RecoveryKey.generate()
        // The list and the new key in one transaction, the key under the revoking list's counter:
        // it wins over the keystore's key and over any key an earlier revocation made, here and on
        // every device it is handed to (after the list, by the announcement below, else at a later
        // pass: `OwnDevices.sendRecoveryKeyIfOwed`).
        try store.write { store in
            try store.deviceLists.keep(next.encoded, counter: next.counter, at: Int64(now))
            try store.recoveryKeys.keepIfNewer(recoveryKey.bytes, listCounter: next.counter)
            // An interrupted link's entry, revoked: nothing is left to withdraw.
            if try LinkInProgress.recorded(in: store)?.entry == target.id { try LinkInProgress.record(nil, in: store) }
        }
        var additional = contents.additional
        additional[KeystoreContents.EntryType.recoveryKey] = recoveryKey.bytes
        // Best effort: every reader takes the store's key first, so a keystore that cannot be
        // rewritten now (a full disk) must not keep the list from reaching contacts below.
        try? rewrite(keystore, keys: keys, adding: additional, to: contents)
        guard let revoked = next.entry(target.id) else { throw HushError(.other, reason: "the signed list lost the revoked device") }
        // Contacts stop counting the device as the account's once the list reaches them; the
        // groups this account administers get a new secret the revoked device does not hold.
        let told = await announceDeviceList(of: identity, device: try linkedDevice(contents, store: store, account: identity), store: store,
                                            relay: relay, rekeyingGroups: true)
        return DeviceRevocation(device: LinkedDevice(revoked, thisDevice: own), recoveryKey: recoveryKey, contactsTold: told.contacts,
                                groupsRekeyed: told.rekey?.rekeyed, adminsAsked: told.rekey?.asked,
                                groupsNotRekeyed: told.rekey?.failed ?? [])
    }

    /// Whether `target` is the device that keeps the account key at the
    /// relay (§20.13): the entry `current` marks so, or, with none marked,
    /// the signer of the account's list 1 (in Hush the device `init` made,
    /// which registered the account key). A list that marks another device
    /// than list 1's signer was not signed by Hush: revoking the first
    /// device under it would retire nothing, so it is refused.
    static func keepsAccountKey(_ target: DeviceListEntry, in current: DeviceList, store: MessageStore,
                                identity: IdentityKeyPair) throws -> Bool {
        let first = try store.deviceLists.list(counter: 1).flatMap { try? DeviceList.decode($0, account: identity.publicKey) }
        if let marked = current.accountKeyDevice {
            if marked.id != target.id, first?.signer == target.id {
                throw HushError(.other, reason: "the account's device list marks another device than the first as keeping the account key, so revoking the first device would not cut it off",
                                suggestion: "a device of the account signed a list Hush does not sign: treat the account as compromised and make a new identity (SECURITY.md)")
            }
            return marked.id == target.id
        }
        return first?.signer == target.id
    }

    /// A home with the account's list but no device key of it: restored from
    /// a backup (archives carry no device key, §19.3), so it cannot sign a
    /// list. It said "no device list" (revoke) or showed a link code it
    /// could only refuse after the new device confirmed (link).
    static let noDeviceKeyToSign = HushError(.invalidInput, reason: "this home holds no device key of the account's device list (it was restored from a backup, and archives carry none), so it cannot sign a list",
                                             suggestion: "link or revoke from another active device of the account (`hush device list` shows them)")

    /// The one entry of `list` whose name is `text`, or whose id starts
    /// with it (at least 4 hex digits).
    static func device(named text: String, in list: DeviceList) throws -> DeviceListEntry {
        let byName = list.entries.filter { $0.name == text }
        let lowered = text.lowercased()
        let byID = lowered.count >= 4 && lowered.allSatisfy(\.isHexDigit) ? list.entries.filter { $0.id.description.hasPrefix(lowered) } : []
        let matches = byName.isEmpty ? byID : byName
        guard !matches.isEmpty else {
            if !lowered.isEmpty, lowered.count < 4, lowered.allSatisfy(\.isHexDigit) {
                throw HushError(.invalidInput, reason: "no device is named \(text), and an id is given by at least 4 of its hex digits",
                                suggestion: "give more of the id (or the name) `hush device list` shows")
            }
            throw HushError(.notFound, reason: "the account has no device named \(text) or whose id starts with it",
                            suggestion: "`hush device list` shows the account's devices with their ids")
        }
        guard matches.count == 1 else {
            throw HushError(.invalidInput, reason: "\(matches.count) devices match \(text): \(matches.map { String($0.id.description.prefix(8)) }.joined(separator: ", "))",
                            suggestion: "give more of the id (`hush device list`)")
        }
        return matches[0]
    }
}
