import Foundation
import Synchronization
import HushCrypto
import HushKeystore
import HushProtocol
import HushRelayClient
import HushStore

/// Linking a device (docs/PROTOCOL.md §20.6): an existing device of the
/// account makes a one-time code; the new device joins with it, receives the
/// account's keys and a signed device list naming it, then the whole history
/// as one backup archive only it can open, in parts through the relay's blob store.
///
/// A linked device holds the account and its history and is known at the
/// relay by its own key (§20.8): it writes to contacts on sessions of its
/// own, which they file under the account (§20.10). Until contacts seal to
/// every device (§20.12), what they send reaches the original device only.
extension HushAccount {
    /// How long either side waits for the other, in all.
    public static let linkTimeout: Duration = .seconds(15 * 60)
    /// How long a new device waits for the answer to its hello. A device
    /// showing its code reads the mailbox several times a second, so no
    /// answer within this means none is coming: the code was used already,
    /// or `hush device link` stopped there (a walkthrough waited the whole
    /// `linkTimeout`, 15 minutes, without a word).
    static let welcomeTimeout: Duration = .seconds(60)

    /// Set in a home made by `joinByLink`: it is a device of the account
    /// with a key of its own at the relay (§20.8), its registration,
    /// prekeys, mailbox and sessions its own (`LocalDevice`).
    static let linkedDeviceSetting = "device.own_key_at_relay"

    /// Why a linked device's home that lacks its device key uses no relay.
    static let deviceKeyMissing = HushError(
        .notRegistered,
        reason: "this home was a linked device of its account and its device key is not here (a backup never holds it): with the account key at the relay it would take the other devices' messages",
        suggestion: "its history can be read here; to use this machine as a device again, run `hush device link` on an active device of the account and `hush init --link CODE` in a new home")

    /// What homes linked before devices had keys at the relay were marked
    /// with; such a home is made a device of its own when it is opened.
    static let earlierLinkedDeviceSetting = "device.linked_without_sessions"

    /// Makes a home restored from a link archive a device of its own: the
    /// account's prekeys, relay login, mailbox cursor and deferred envelopes
    /// it copied belong to the account key's mailbox, which this device
    /// never reads (it registers its own, signed by its own key). Sessions
    /// are not in the archive; `startMissingSessions` starts its own.
    static func makeLinkedDevice(_ store: MessageStore) throws {
        try store.write { store in
            try store.prekeys.deleteAll()
            try store.quarantine.deleteAllDeferred()
            for name in [SettingsRepository.Name.syncCursor, SettingsRepository.Name.sessionToken, SettingsRepository.Name.registration,
                         SettingsRepository.Name.registeredAt, SettingsRepository.Name.replacedAt, HushAccount.earlierLinkedDeviceSetting,
                         LinkInProgress.setting] {
                try store.settings.set(name, to: nil)
            }
            try store.settings.set(HushAccount.linkedDeviceSetting, to: "1")
        }
    }

    /// Links a new device to the account in `directory` (closed: it is held
    /// exclusively meanwhile), through its relay (or `relayURL`).
    ///
    /// `showCode` gets the code's text to show the user (a secret: never log
    /// it). When the new device answers, `confirm` gets its name (untrusted
    /// text: sanitise it) and the six digits both screens show; it returns
    /// whether the user says they match. Only then is anything signed: the
    /// account's next device list, with `thisDeviceName` naming this device
    /// in its first list when the account has none yet. Then the history is
    /// written as an archive under the link's key and sent in parts, each
    /// uploaded, announced, and deleted at the relay once the new device has
    /// it; this returns when the new device has every part.
    ///
    /// - Throws: `HushError` of kind `keyUnavailable` (no recovery key yet:
    ///   `recoveryKey(in:keys:)`), `notRegistered` (no relay), `relayUnavailable`,
    ///   `invalidInput` (the new device's key, proof or name is refused),
    ///   `other` (declined, or no answer within `linkTimeout`), or as
    ///   `open(in:keys:)`. A declined link, or one that fails before the
    ///   user confirms, signs nothing; one that fails after the list naming
    ///   the new device was published and before the history's end was sent
    ///   revokes that entry again (a new recovery key, groups rekeyed), and
    ///   one that fails after it leaves the entry: its error (of the kind
    ///   the failure had) says which, and how to remove the entry.
    ///
    /// Cancelling the calling task stops the link as such a failure: the
    /// new device is told at once and a published entry withdrawn (`hush
    /// device link` cancels on Ctrl-C). A link whose process was killed
    /// after publishing leaves a record (`LinkedDevice.linkInterrupted`):
    /// this call withdraws it before showing a code and tells
    /// `earlierLinkWithdrawn` (the new recovery key among it: show it).
    @discardableResult
    public static func linkDevice(from directory: String, keys: KeyProvider, thisDeviceName: String, relayURL: String? = nil,
                                  earlierLinkWithdrawn: @escaping @Sendable (InterruptedLink) async -> Void = { _ in },
                                  showCode: @escaping @Sendable (String) async -> Void,
                                  confirm: @escaping @Sendable (_ newDeviceName: String, _ digits: String) async -> Bool)
        async throws(HushError) -> LinkedDevice {
        // Cancelling the calling task stops the link as a failure would: the new device is told, and an entry
        // already published is withdrawn (a Ctrl-C used to leave both behind, a walkthrough found).
        try await LinkStop.running { stop throws(HushError) in
            try await linkDevice(from: directory, keys: keys, thisDeviceName: thisDeviceName, relayURL: relayURL, timeout: linkTimeout,
                                 stop: stop, earlierLinkWithdrawn: earlierLinkWithdrawn, showCode: showCode, confirm: confirm)
        }
    }

    /// `partBytes`: the history's part size (smaller in tests, to cut a small history in several).
    static let notActiveToLink = HushError(.invalidInput, reason: "this device is not active in the account's device list, so it cannot link another",
                                           suggestion: "link the new device from an active device of the account")

    static func linkDevice(from directory: String, keys: KeyProvider, thisDeviceName: String, relayURL: String?, timeout: Duration,
                           partBytes: Int64 = LinkArchiveTransfer.partBytes, stop: LinkStop? = nil, abandonAfterAdmit: Bool = false,
                           earlierLinkWithdrawn: @Sendable (InterruptedLink) async -> Void = { _ in },
                           showCode: @Sendable (String) async -> Void,
                           confirm: @escaping @Sendable (_ newDeviceName: String, _ digits: String) async -> Bool)
        async throws(HushError) -> LinkedDevice {
        try await translatingErrors {
            let (home, keystore, lock, unlocked) = try unlockHome(directory, keys: keys, .exclusive)
            defer { lock.release() }
            var contents = unlocked
            let identity = try IdentityKeyPair(seed: contents.identitySeed)
            let store = try MessageStore.openExisting(path: home.databasePath, key: contents.databaseKey)
            guard let relay = try relayURL ?? store.settings.value(SettingsRepository.Name.relayURL), !relay.isEmpty else {
                throw HushError(.notRegistered, reason: "this account has no relay, and a link goes through one",
                                suggestion: "give the relay with --relay")
            }
            // What a killed link left behind goes first: its entry, or the user's word on it.
            if let earlier = try await withdrawInterruptedLink(identity: identity, home: home, store: store, keystore: keystore, keys: keys,
                                                               contents: &contents, relay: relay) {
                await earlierLinkWithdrawn(earlier)
            }
            // The newest: one a revocation made replaces the one a revoked device holds (§20.14).
            guard let recoveryKey = try newestRecoveryKey(of: contents, store: store) else { throw noRecoveryKey }
            // Before a code is shown: a revoked device showed one, and refused only once the new
            // device's side had confirmed (found in a user walkthrough).
            if let latest = try store.deviceLists.latest() {
                guard let seed = contents.additional[KeystoreContents.EntryType.deviceSeed] else { throw noDeviceKeyToSign }
                guard try DeviceList.decode(latest, account: identity.publicKey)
                    .entry(DeviceID(deviceKey: try Ed25519.PrivateKey(seed: seed).publicKey))?.isActive == true else { throw notActiveToLink }
            }
            let deadline = ContinuousClock.now + timeout
            let code = try LinkCode.generate(relay: relay)
            let linkKeys = try code.keys()
            let mailbox = try await LinkMailbox.open(linkKeys, relayURL: relay, side: .existingDevice, stop: stop)
            await showCode(code.displayText)

            // 3: the first hello made with this code; later ones are ignored (a code links one device).
            let (hello, newEphemeral) = try await mailbox.next(until: deadline, waitingFor: "the new device's hello") { message in
                (try? linkKeys.openHello(message)).map { (message, $0) }
            }
            let ephemeral = X25519.PrivateKey(storage: .guarded)
            let channel = try linkKeys.channel(own: ephemeral, peer: newEphemeral, newDevice: newEphemeral, existingDevice: ephemeral.publicKey)
            try await mailbox.send(linkKeys.welcome(ephemeral.publicKey, answering: hello))
            try await mailbox.send(channel.seal(LinkMessage.account(identity.publicKey).encoded, from: .existingToNew, number: 0))
            // From here on the new device waits on this one: whatever ends the link here tells it so at once.
            var number: UInt8 = 1
            var progress = LinkProgress()
            do {
                let added = try await admitAndSendHistory(mailbox, channel, number: &number, progress: &progress, home: home, keys: keys,
                                                          keystore: keystore,
                                                          contents: contents, identity: identity, recoveryKey: recoveryKey, store: store,
                                                          thisDeviceName: thisDeviceName, partBytes: partBytes, deadline: deadline,
                                                          stop: stop, abandonAfterAdmit: abandonAfterAdmit, confirm: confirm)
                await mailbox.finish()
                // Contacts learn of the new device from this one, which holds the sessions (§20.13).
                _ = await announceDeviceList(of: identity, device: try linkedDevice(contents, store: store, account: identity), store: store,
                                             relay: relay)
                return added
            } catch is AbandonedLink {
                throw HushError(.other, reason: "abandoned (a test's stand-in for a killed process)")
            } catch {
                try? await mailbox.send(channel.seal(LinkMessage.declined.encoded, from: .existingToNew, number: number))
                await mailbox.finish()
                guard let named = progress.named else { throw error }
                throw await withdrawLink(named, endMayHaveBeenSent: progress.endMayHaveBeenSent, after: error, identity: identity,
                                         store: store, keystore: keystore, keys: keys, contents: progress.keystoreContents ?? contents,
                                         relay: relay)
            }
        }
    }

    /// How far a link got on the existing device: what a failure leaves behind.
    struct LinkProgress {
        /// The published list that names the new device, its entry, and this device's key, which signed it.
        var named: (list: DeviceList, entry: DeviceListEntry, signer: Ed25519.PrivateKey)?
        /// The history's end was (or may have been) sent: from then on the new device may have finished.
        var endMayHaveBeenSent = false
        /// What the keystore holds once this device has its own key (made by an account's first link).
        var keystoreContents: KeystoreContents?
    }

    /// Thrown past every clean-up when a test abandons a link (either side), as a killed process would.
    struct AbandonedLink: Error {}

    /// The error a link that failed after the list naming its new device was
    /// published ends with. Before the history's end was sent the new device
    /// cannot have finished (it writes nothing without it), yet `admit` gave
    /// it the account seed and the recovery key: its entry is revoked as
    /// `revokeDevice` would (docs/PROTOCOL.md §20.6), so no active device
    /// nobody has stays in the list (a walkthrough found one), with a new
    /// recovery key, and groups rekeyed for whatever part of the history it
    /// holds. After the end, or when the revocation cannot be published,
    /// the error says how to remove the entry by hand.
    private static func withdrawLink(_ named: (list: DeviceList, entry: DeviceListEntry, signer: Ed25519.PrivateKey), endMayHaveBeenSent: Bool,
                                     after error: any Error, identity: IdentityKeyPair, store: sending MessageStore, keystore: KeystoreFile,
                                     keys: KeyProvider, contents: KeystoreContents, relay: String) async -> HushError {
        // The failure keeps its kind (a relay outage stays one) and its own advice.
        let failure = (error as? HushError) ?? HushError(.other, reason: "\(error)")
        let name = named.entry.name
        let byHand = "if the new device says it was not linked, remove '\(name)' with `hush device revoke` (`hush device list` shows it)"
        guard !endMayHaveBeenSent else {
            // The record stays: `device list` marks the entry until it is revoked or the next link
            // asks about it (a walkthrough found the entry active and unmarked).
            return HushError(failure.kind, reason: "the link did not complete here (\(failure.reason)), and the account's device list names '\(name)'",
                             suggestion: [failure.suggestion, byHand].compactMap { $0 }.joined(separator: "; "), subject: failure.subject)
        }
        do {
            _ = try await revoke(named.entry, in: named.list, by: named.signer, identity: identity, store: store, keystore: keystore,
                                 keys: keys, contents: contents, relay: relay)
            return HushError(failure.kind, reason: "the link did not complete (\(failure.reason)); '\(name)', which the account's device list "
                                 + "had named, was revoked again, since it had been handed the account key",
                             suggestion: [failure.suggestion, "the account has a new recovery key for the backups that follow: "
                                 + "`hush backup key` shows it; write it down"].compactMap { $0 }.joined(separator: "; "),
                             subject: failure.subject)
        } catch {
            let revocation = (error as? HushError)?.reason ?? "\(error)"
            return HushError(failure.kind, reason: "the link did not complete (\(failure.reason)), and the account's device list names '\(name)', "
                                 + "which could not be revoked again now (\(revocation))",
                             suggestion: [failure.suggestion, byHand].compactMap { $0 }.joined(separator: "; "), subject: failure.subject)
        }
    }

    /// Steps 5 to 7 of the existing device, once the channel is up: the new
    /// device's key, the user's confirmation, the list, the history. `number`
    /// is the next channel message's, for the `ended` message on a failure.
    private static func admitAndSendHistory(_ mailbox: LinkMailbox, _ channel: LinkChannelKeys, number: inout UInt8,
                                            progress: inout LinkProgress, home: DataDirectory,
                                            keys: KeyProvider, keystore: KeystoreFile, contents: KeystoreContents, identity: IdentityKeyPair,
                                            recoveryKey: RecoveryKey, store: MessageStore, thisDeviceName: String, partBytes: Int64,
                                            deadline: ContinuousClock.Instant, stop: LinkStop?, abandonAfterAdmit: Bool,
                                            confirm: @escaping @Sendable (_ newDeviceName: String, _ digits: String) async -> Bool) async throws -> LinkedDevice {
        // 5: the new device's key, proof and name, checked before anything is signed.
        let device = try await mailbox.next(until: deadline, waitingFor: "the new device's key") { message in
            try Self.openChannelMessage(message, channel, from: .newToExisting, number: 0)
        }
        guard case let .device(deviceKey, proof, name) = device else { throw unexpectedLinkMessage }
        let now = UInt64(Date().timeIntervalSince1970 * 1000)
        let entry: DeviceListEntry
        do {
            entry = try DeviceListEntry.joining(key: deviceKey, proof: proof, name: name, account: identity.publicKey, addedAt: now)
        } catch {
            throw HushError(.invalidInput, reason: "the new device's key was refused (\(error)); nothing was signed",
                            suggestion: "start again with a new code")
        }
        guard try await askWatching(mailbox, channel, stop: stop, { await confirm(name, channel.confirmation) }), stop?.isRequested != true else {
            if stop?.isRequested == true {
                throw HushError(.other, reason: LinkStop.stopped.reason + ": nothing was signed and the new device was sent nothing of the account",
                                suggestion: LinkStop.stopped.suggestion)
            }
            throw HushError(.other, reason: "the link was declined: nothing was signed and the new device was sent nothing of the account",
                            suggestion: "if the digits differed, someone else may have seen the code: make a new one")
        }
        // The new device's user may have stopped it while the digits showed (it then sends `ended`, §20.6):
        // nothing is signed for a device that is gone.
        if let early = try await mailbox.poll({ try Self.openChannelMessage($0, channel, from: .newToExisting, number: 1) }) {
            guard case .declined = early else { throw unexpectedLinkMessage }
            throw newDeviceStoppedEarly
        }

        // Confirmed: the next list, signed by this device (made now if the account has none).
        var keystoreContents = contents
        let (ownKey, current) = try Self.ownDeviceAndList(keystore, keys: keys, contents: &keystoreContents, identity: identity,
                                                          store: store, name: thisDeviceName, now: now)
        progress.keystoreContents = keystoreContents
        let next = try DeviceList.sign(account: identity, counter: current.counter + 1, createdAt: now, signer: ownKey,
                                       entries: current.entries + [entry])
        // Published first, kept after (as a revocation does): a list kept here but refused at the relay
        // would be the base of the next one and go to contacts, who would then refuse every later list.
        try await publish(next, replacing: current, of: identity, store: store, with: mailbox.client)
        progress.named = (next, entry, ownKey)
        // With the record of the link under way: a process killed from here on leaves it for the next link (`InterruptedLink`).
        try store.write { store in
            try store.deviceLists.keep(next.encoded, counter: next.counter, at: Int64(now))
            try LinkInProgress.record(LinkInProgress(entry: entry.id, endMayHaveBeenSent: false), in: store)
        }
        // The key goes with the counter it is held under (0: the keystore's, §20.14), so the new device
        // keeps it exactly as newer or older than a key another device hands it later.
        let keyCounter = try store.recoveryKeys.current()?.listCounter ?? 0
        var admit = LinkMessage.admit(accountSeed: contents.identitySeed, recoveryKey: recoveryKey.bytes, recoveryKeyCounter: keyCounter,
                                      list: next.encoded).encoded
        defer { ConstantTime.wipe(&admit) }
        try await mailbox.send(channel.seal(admit, from: .existingToNew, number: 1))
        number = 2
        if abandonAfterAdmit { throw AbandonedLink() }

        // 7: the history, under the link's archive key, through the blob store.
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hush-link-" + Hex.encode(SystemRandom().bytes(8))).path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // Every file sealed: the relay carries this archive and stores the blobs, which it would otherwise match.
        let archive = try writeBackup(of: home, databaseKey: contents.databaseKey, identity: identity, identityCreatedAt: contents.createdAt,
                                      recoveryKey: RecoveryKey(bytes: channel.archiveKey), to: folder, blobsInTheClear: false)
        try await sendHistory(archive.path, length: Int64(archive.archiveBytes), partBytes: partBytes, mailbox, channel, number: &number,
                              endMayHaveBeenSent: &progress.endMayHaveBeenSent, deadline: deadline, stop: stop) {
            try LinkInProgress.record(LinkInProgress(entry: entry.id, endMayHaveBeenSent: true), in: store)
        }
        try LinkInProgress.record(nil, in: store)
        return LinkedDevice(entry, thisDevice: DeviceID(deviceKey: ownKey.publicKey))
    }

    /// The user's answer to `ask`, while the link mailbox is watched: a new
    /// device stopped meanwhile (its `ended`, number 1) ends the question at
    /// once (`ask` is cancelled) instead of when the user answers, up to 15
    /// minutes later (a walkthrough waited); so does a stop here.
    private static func askWatching(_ mailbox: LinkMailbox, _ channel: LinkChannelKeys, stop: LinkStop?,
                                    _ ask: @escaping @Sendable () async -> Bool) async throws -> Bool {
        let answer = Mutex<Bool?>(nil)
        let asking = Task {
            let said = await ask()
            answer.withLock { $0 = said }
        }
        defer { asking.cancel() }
        while true {
            if let said = answer.withLock({ $0 }) { return said }
            if stop?.isRequested == true { return false }
            if let early = try await mailbox.poll({ try Self.openChannelMessage($0, channel, from: .newToExisting, number: 1) }) {
                guard case .declined = early else { throw unexpectedLinkMessage }
                throw newDeviceStoppedEarly
            }
            try await Task.sleep(for: LinkMailbox.pollInterval)
        }
    }

    static let newDeviceStoppedEarly = HushError(.other, reason: "the new device stopped the link before it was admitted: nothing was signed",
                                                 suggestion: "start again with a new code when both devices are ready")

    /// Step 7 of the existing device: the archive at `path` in parts, each
    /// announced once uploaded; never more than `LinkArchiveTransfer.window`
    /// at the relay unconfirmed, and each deleted there once the new device
    /// says it has it. Returns when the new device has confirmed every part.
    private static func sendHistory(_ path: String, length: Int64, partBytes: Int64, _ mailbox: LinkMailbox, _ channel: LinkChannelKeys,
                                    number: inout UInt8, endMayHaveBeenSent: inout Bool, deadline: ContinuousClock.Instant,
                                    stop: LinkStop?, beforeEnd: () throws -> Void) async throws {
        let plan = try LinkArchiveTransfer.Plan(length: length, partBytes: partBytes)
        var unconfirmed: [(index: Int, blobID: String)] = []
        // A link that ends here leaves none of its parts at the relay (they counted against the
        // account's upload allowance for 30 days: a walkthrough's stopped links filled it).
        var succeeded = false
        defer {
            if !succeeded, !unconfirmed.isEmpty {
                let client = mailbox.client, blobs = unconfirmed.map(\.blobID)
                Task { for blob in blobs { _ = try? await client.deleteBlob(id: blob) } }
            }
        }
        // A stop is seen before every part and before the end: once the end is sent the new device may finish.
        func checkStop() throws { if stop?.isRequested == true { throw LinkStop.stopped } }
        var confirmations: UInt8 = 1
        func awaitOldestConfirmation() async throws {
            // Taken off the list only once confirmed: a link that ends while waiting deletes it too.
            let oldest = unconfirmed[0]
            let answer = try await mailbox.next(until: deadline, waitingFor: "the new device to receive the history") { message in
                try Self.openChannelMessage(message, channel, from: .newToExisting, number: confirmations)
            }
            confirmations += 1
            switch answer {
            case let .partReceived(index) where Int(index) == oldest.index:
                unconfirmed.removeFirst()
                // Best effort: a blob left behind only waits for its expiry.
                _ = try? await mailbox.client.deleteBlob(id: oldest.blobID)
            case .declined:
                throw HushError(.other, reason: "the new device stopped receiving the history (its screen says why)",
                                suggestion: "start again with a new code")
            default:
                throw unexpectedLinkMessage
            }
        }
        for index in 0..<plan.count {
            if unconfirmed.count == LinkArchiveTransfer.window { try await awaitOldestConfirmation() }
            try checkStop()
            let range = plan.range(index)
            let (blobID, digest) = try await LinkArchiveTransfer.uploadPart(path, range: range, with: mailbox.client)
            unconfirmed.append((index, blobID))
            try await mailbox.send(channel.seal(LinkMessage.archivePart(index: UInt32(index), blobID: blobID, length: UInt64(range.count),
                                                                        sha256: digest).encoded, from: .existingToNew, number: number))
            number += 1
        }
        try checkStop()
        // Set before the send: one whose answer was lost may have reached the relay.
        try beforeEnd()
        endMayHaveBeenSent = true
        try await mailbox.send(channel.seal(LinkMessage.archiveEnd(parts: UInt32(plan.count), length: UInt64(length)).encoded,
                                            from: .existingToNew, number: number))
        number += 1
        while !unconfirmed.isEmpty { try await awaitOldestConfirmation() }
        succeeded = true
    }

    /// Puts `list` in the account's directory at the relay (§20.9), where a
    /// contact who knows only the address finds the account's devices; done
    /// before anything that names the new device is sent.
    ///
    /// A relay that holds a newer list (409: another device changed it, or
    /// this one published a list it could not keep, a full disk) is read:
    /// a list there that follows `current` (§20.3) is kept here, so the
    /// command works when run again instead of signing the same counter
    /// once more; one that does not is reported (a revoked device's, §20.14).
    static func publish(_ list: DeviceList, replacing current: DeviceList, of identity: IdentityKeyPair, store: MessageStore,
                        with client: RelayClient) async throws {
        do {
            _ = try await client.publishDirectory(list, writer: DeviceDirectory.Writer(account: identity))
        } catch let error as RelayClientError where error.status == 409 {
            let newer: DeviceList?
            do {
                newer = try await client.fetchDirectory(of: identity.publicKey)
            } catch {
                throw HushError(.relayUnavailable, reason: "the relay holds a newer device list of this account, and it could not be read: nothing was changed",
                                suggestion: "run the command again (\(error))")
            }
            guard let newer else {
                throw HushError(.other, reason: "the relay refused the device list as older than its own but holds none: nothing was changed",
                                suggestion: "run the command again")
            }
            do throws(ProtocolError) {
                _ = try DeviceListVerifier(account: identity.publicKey, current: current).check(newer.encoded)
            } catch .deviceListRefused(.signerNotActive) {
                // Devices do not pass lists to each other yet: a device linked from another one signs lists this one cannot check.
                throw HushError(.other, reason: "the relay holds list \(newer.counter) of this account, signed by a device this one does not know (one linked from another device since this one's list): nothing was changed",
                                suggestion: "run the command on the device that linked the newest device")
            } catch {
                throw HushError(.other, reason: "the relay holds a device list of this account that this device refuses (\(error.description)): nothing was changed",
                                suggestion: "check `hush device list` on the account's other devices; if none of them made that list, a revoked device wrote it with the account key it still holds (SECURITY.md), and a new identity is the remedy")
            }
            try store.deviceLists.keep(newer.encoded, counter: newer.counter, at: Int64(Date().timeIntervalSince1970 * 1000))
            throw HushError(.other, reason: "the relay holds a newer device list of this account (list \(newer.counter): another device changed it meanwhile); it is kept here now, and nothing was changed by this command",
                            suggestion: "run the command again")
        } catch let error as RelayClientError {
            throw HushError(.relayUnavailable, reason: "the account's device list could not be published at the relay; nothing was sent to the new device",
                            suggestion: error.description)
        }
    }

    /// This device's key and the account's current list, in which it is
    /// active. An account without a list gets both now (§20.8 "Accounts made
    /// before lists"): a device seed, kept in the keystore before anything
    /// names its key, then list 1 with this device alone.
    private static func ownDeviceAndList(_ keystore: KeystoreFile, keys: KeyProvider, contents: inout KeystoreContents, identity: IdentityKeyPair,
                                         store: MessageStore, name: String, now: UInt64) throws -> (Ed25519.PrivateKey, DeviceList) {
        var seed = contents.additional[KeystoreContents.EntryType.deviceSeed]
        if seed == nil {
            let made = SecureBytes(randomCount: Ed25519.seedLength, storage: .guarded)
            var additional = contents.additional
            additional[KeystoreContents.EntryType.deviceSeed] = made
            try rewrite(keystore, keys: keys, adding: additional, to: contents)
            // What the keystore holds now: a later rewrite (a link withdrawn) starts from it, not from the seedless one.
            contents = KeystoreContents(identitySeed: contents.identitySeed, databaseKey: contents.databaseKey, createdAt: contents.createdAt,
                                        additional: additional)
            seed = made
        }
        let ownKey = try Ed25519.PrivateKey(seed: seed!)
        if let latest = try store.deviceLists.latest() {
            let list = try DeviceList.decode(latest, account: identity.publicKey)
            guard list.entry(DeviceID(deviceKey: ownKey.publicKey))?.isActive == true else { throw notActiveToLink }
            return (ownKey, list)
        }
        let own: DeviceListEntry
        do { own = try DeviceListEntry.linking(ownKey, to: identity.publicKey, name: name, addedAt: now) } catch {
            throw HushError(.invalidInput, reason: "this device's name is refused: 1 to 64 bytes of UTF-8 without control characters",
                            suggestion: "give another name with --name")
        }
        let first = try DeviceList.sign(account: identity, counter: 1, createdAt: now, signer: ownKey, entries: [own])
        try store.deviceLists.keep(first.encoded, counter: first.counter, at: Int64(now))
        return (ownKey, first)
    }

    /// Joins the account whose device showed `code`, making a new home in
    /// `directory` (which must not exist or be empty), its keystore sealed
    /// under `keys`. `showDigits` gets the six digits to show the user, who
    /// compares them with the other device's screen and confirms there.
    /// Returns what the history archive held and the new account, open.
    ///
    /// Nothing is written into `directory` until the history has arrived and
    /// checked (its length, its SHA-256, every record): a failure at any
    /// step leaves it as it was.
    ///
    /// - Throws: `HushError` of kind `invalidInput` (not a link code, a bad
    ///   name, or an answer that does not verify), `accountExists` (the
    ///   directory is not empty), `notFound` (no device waits with this code),
    ///   `relayUnavailable`, `damagedFile` (the archive), `other` (declined,
    ///   no answer to this device's hello within a minute, which means the
    ///   code was used or the other device stopped showing it, no answer
    ///   within `linkTimeout`, or the calling task cancelled: the link
    ///   stops, and the other device is told at once).
    public static func joinByLink(code text: String, into directory: String, keys: KeyProvider, deviceName: String,
                                  relayURL: String? = nil, showDigits: @escaping @Sendable (String) async -> Void)
        async throws(HushError) -> (summary: BackupSummary, account: HushAccount) {
        // Cancelling the calling task stops the link, and the other device is told at once.
        try await LinkStop.running { stop throws(HushError) in
            try await joinByLink(code: text, into: directory, keys: keys, deviceName: deviceName, relayURL: relayURL,
                                 timeout: linkTimeout, stop: stop, showDigits: showDigits)
        }
    }

    /// Checks that `text` reads as a link code (its form and its check
    /// character: a typo is caught here), before anything is asked of the
    /// user or the relay; `joinByLink` checks it again.
    ///
    /// - Throws: `HushError` of kind `invalidInput`, saying what is wrong.
    public static func checkLinkCode(_ text: String) throws(HushError) {
        _ = try parsedLinkCode(text)
    }

    private static func parsedLinkCode(_ text: String) throws(HushError) -> LinkCode {
        do { return try LinkCode(parsing: text) } catch {
            // "it …": the problem's own words (it read "this is not a link code: invalid link code: it …").
            let why = if case let .invalidLinkCode(problem) = error { "it \(problem.explanation)" } else { "\(error)" }
            throw HushError(.invalidInput, reason: "this is not a link code: \(why)",
                            suggestion: "type it again from the screen of `hush device link` (or use --link - and paste it)")
        }
    }

    static func joinByLink(code text: String, into directory: String, keys: KeyProvider, deviceName: String, relayURL: String?,
                           timeout: Duration, welcomeTimeout: Duration = welcomeTimeout, stop: LinkStop? = nil,
                           abandonAfterDigits: Bool = false, showDigits: @Sendable (String) async -> Void)
        async throws(HushError) -> (summary: BackupSummary, account: HushAccount) {
        let code = try parsedLinkCode(text)
        try BackupRestoration.checkEmpty(directory, what: "a device is only linked")
        return try await translatingErrors {
            guard let relay = relayURL ?? (code.relay.isEmpty ? nil : code.relay) else {
                throw HushError(.invalidInput, reason: "the link code names no relay", suggestion: "give the relay the other device uses with --relay")
            }
            let deadline = ContinuousClock.now + timeout
            let linkKeys = try code.keys()
            let mailbox = try await LinkMailbox.open(linkKeys, relayURL: relay, side: .newDevice, stop: stop)
            let ephemeral = X25519.PrivateKey(storage: .guarded)
            let hello = linkKeys.hello(ephemeral.publicKey)
            try await mailbox.send(hello)

            // 4: the welcome answering this hello. Only holders of the code can
            // deposit here, so a welcome that does not verify was altered: stop.
            let unanswered = HushError(.other, reason: "no device answered this link code: it was used already, or `hush device link` is no longer running on the other device",
                                       suggestion: "run `hush device link` there again and give the new code")
            let existingEphemeral = try await mailbox.next(until: min(deadline, .now + welcomeTimeout), waitingFor: "the other device's welcome",
                                                           onTimeout: unanswered) { message in
                do { return try linkKeys.openWelcome(message, answering: hello) } catch {
                    throw HushError(.invalidInput, reason: "the other device's answer does not verify: it was altered on the way, or answers another device's hello",
                                    suggestion: "start again with a new code")
                }
            }
            let channel = try linkKeys.channel(own: ephemeral, peer: existingEphemeral, newDevice: ephemeral.publicKey,
                                               existingDevice: existingEphemeral)
            let accountMessage = try await mailbox.next(until: deadline, waitingFor: "the account") { message in
                try Self.openChannelMessage(message, channel, from: .existingToNew, number: 0)
            }
            guard case let .account(account) = accountMessage else { throw unexpectedLinkMessage }
            let deviceKey = Ed25519.PrivateKey(storage: .guarded)
            let entry: DeviceListEntry
            do { entry = try DeviceListEntry.linking(deviceKey, to: account, name: deviceName, addedAt: 0) } catch {
                throw HushError(.invalidInput, reason: "this device's name is refused: 1 to 64 bytes of UTF-8 without control characters",
                                suggestion: "give another name with --name")
            }
            try await mailbox.send(channel.seal(LinkMessage.device(key: deviceKey.publicKey, proof: entry.proof, name: deviceName).encoded,
                                                from: .newToExisting, number: 0))
            await showDigits(channel.confirmation)
            if abandonAfterDigits { throw AbandonedLink() }

            // 6: admitted (or declined) after the user compared the digits. Stopped here, this
            // device says so (`ended`, number 1): the other one then signs nothing (§20.6).
            let answer: LinkMessage
            do {
                answer = try await mailbox.next(until: deadline, waitingFor: "the confirmation on the other device") { message in
                    try Self.openChannelMessage(message, channel, from: .existingToNew, number: 1)
                }
            } catch {
                try? await mailbox.send(channel.seal(LinkMessage.declined.encoded, from: .newToExisting, number: mailbox.nextNewToExisting))
                await mailbox.finish()
                throw error
            }
            let accountSeed: SecureBytes, recoveryKey: SecureBytes, recoveryKeyCounter: UInt64, list: DeviceList
            switch answer {
            case .declined:
                await mailbox.finish()
                throw linkEnded
            case let .admit(seed, key, keyCounter, bytes):
                guard try IdentityKeyPair(seed: seed).publicKey == account else {
                    throw HushError(.invalidInput, reason: "the account key sent does not match the account: nothing was written here")
                }
                var verifier = DeviceListVerifier(account: account)
                do { _ = try verifier.accept(bytes) } catch {
                    throw HushError(.invalidInput, reason: "the account's device list was refused (\(error)): nothing was written here")
                }
                guard let admitted = verifier.current, admitted.entry(DeviceID(deviceKey: deviceKey.publicKey))?.isActive == true else {
                    throw HushError(.invalidInput, reason: "the account's device list does not name this device: nothing was written here")
                }
                (accountSeed, recoveryKey, recoveryKeyCounter, list) = (seed, key, keyCounter, admitted)
            default:
                throw unexpectedLinkMessage
            }

            // 7: the history.
            let target = URL(fileURLWithPath: directory).standardizedFileURL
            let parent = target.deletingLastPathComponent()
            // What a link into this home killed outright left (a walkthrough found 256 MiB and 384 MiB of them
            // beside a home): the home is still empty, so no link into it is under way but this one.
            let stale = "." + target.lastPathComponent + "."
            // Exactly `.HOME.<12 hex>.link-archive`: a prefix alone would take another home's (".a." begins ".a.b.…").
            for name in (try? FileManager.default.contentsOfDirectory(atPath: parent.path)) ?? []
            where name.hasPrefix(stale) && name.hasSuffix(".link-archive")
                && name.dropFirst(stale.count).dropLast(".link-archive".count).allSatisfy(\.isHexDigit)
                && name.count == stale.count + 12 + ".link-archive".count {
                try? FileManager.default.removeItem(atPath: parent.appendingPathComponent(name).path)
            }
            let download = parent.appendingPathComponent(stale + Hex.encode(SystemRandom().bytes(6)) + ".link-archive").path
            defer { try? FileManager.default.removeItem(atPath: download) }
            do {
                try await receiveHistory(into: download, mailbox, channel, deadline: deadline)
            } catch {
                // The other device waits on our confirmations: tell it at once (not if it ended the link itself).
                if (error as? HushError)?.reason != linkEnded.reason {
                    try? await mailbox.send(channel.seal(LinkMessage.declined.encoded, from: .newToExisting, number: mailbox.nextNewToExisting))
                }
                await mailbox.finish()
                throw error
            }
            let secrets = [KeystoreContents.EntryType.recoveryKey: recoveryKey, KeystoreContents.EntryType.deviceSeed: deviceKey.seed]
            let restored = try BackupRestoration.restore(path: download, into: directory, recoveryKey: RecoveryKey(bytes: channel.archiveKey),
                                                         keys: keys, keystoreSecrets: secrets) { home, contents in
                guard contents.identitySeed == accountSeed else {
                    throw HushError(.invalidInput, reason: "the history archive is another account's: nothing was written here")
                }
                let store = try MessageStore.openExisting(path: home.databasePath, key: contents.databaseKey)
                try store.deviceLists.keep(list.encoded, counter: list.counter, at: Int64(Date().timeIntervalSince1970 * 1000))
                // The key the admitting device sent, under the counter it held it under: a key an older
                // revocation made, handed on later by a device that lagged, does not replace it, and a
                // newer one does (the admitting device may have lagged itself).
                if recoveryKeyCounter > 0 { try store.recoveryKeys.keepIfNewer(recoveryKey, listCounter: recoveryKeyCounter) }
                // The relay the link went through is the account's.
                try store.settings.set(SettingsRepository.Name.relayURL, to: mailbox.client.baseURL)
                try makeLinkedDevice(store)
            }
            await mailbox.finish()
            do {
                let opened = try await opened(DataDirectory(path: directory), contents: restored.keystore, lock: restored.lock)
                // Best effort: the device is linked either way, and `hush register` (or
                // `register()`) publishes its key later; sessions start when it first writes.
                if (try? await opened.register()) != nil { _ = try? await opened.messenger.startMissingContactSessions() }
                return (restored.summary, opened)
            } catch {
                let reason = (error as? HushError)?.reason ?? "\(error)"
                throw HushError(.storage, reason: "the device was linked into \(directory), but the account could not be opened: \(reason)",
                                suggestion: "open it again (with the new passphrase); do not link again")
            }
        }
    }

    /// Step 7 of the new device: every part the existing device announces,
    /// in order, downloaded to the end of a new file at `path` and checked,
    /// then confirmed (so the existing device deletes it at the relay and
    /// sends the next), until the end message accounts for all of them.
    private static func receiveHistory(into path: String, _ mailbox: LinkMailbox, _ channel: LinkChannelKeys,
                                       deadline: ContinuousClock.Instant) async throws {
        guard FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o600]),
              let file = FileHandle(forWritingAtPath: path) else {
            throw HushError(.storage, reason: "could not create \(path) for the history", suggestion: "check that the folder is writable")
        }
        defer { try? file.close() }
        var number: UInt8 = 2
        var parts: UInt32 = 0
        var length: UInt64 = 0
        while true {
            let message = try await mailbox.next(until: deadline, waitingFor: "the history archive") { message in
                try Self.openChannelMessage(message, channel, from: .existingToNew, number: number)
            }
            number += 1
            switch message {
            case .declined:
                throw linkEnded
            case let .archivePart(index, blobID, partLength, digest):
                guard index == parts, Int(parts) < LinkArchiveTransfer.maxParts else { throw unexpectedLinkMessage }
                try await LinkArchiveTransfer.downloadPart(blobID, length: partLength, sha256: digest, into: file, at: length, with: mailbox.client)
                parts += 1
                length += partLength
                try await mailbox.send(channel.seal(LinkMessage.partReceived(index: index).encoded, from: .newToExisting,
                                                    number: mailbox.nextNewToExisting))
                mailbox.nextNewToExisting += 1
            case let .archiveEnd(count, total):
                guard count == parts, total == length, parts > 0 else {
                    throw LinkArchiveTransfer.damaged("the parts that arrived (\(parts), \(length) bytes) are not the \(count) announced (\(total) bytes)")
                }
                do { try file.synchronize() } catch {
                    throw HushError(.storage, reason: "could not write the history to the disk", suggestion: "check the disk")
                }
                return
            default:
                throw unexpectedLinkMessage
            }
        }
    }

    /// The devices of the account in `directory`, as its current list names
    /// them (empty for an account that never linked one).
    ///
    /// - Throws: as `open(in:keys:)`.
    public static func devices(in directory: String, keys: KeyProvider) async throws(HushError) -> [LinkedDevice] {
        try await deviceList(in: directory, keys: keys)?.devices ?? []
    }

    /// The current device list of the account in `directory`, with its
    /// fingerprint (what contacts see for this account: `devices(ofContact:)`
    /// on their side); nil for an account that never linked a device.
    ///
    /// - Throws: as `open(in:keys:)`.
    public static func deviceList(in directory: String, keys: KeyProvider) async throws(HushError) -> DeviceListSummary? {
        try await translatingErrors {
            let (home, _, lock, contents) = try unlockHome(directory, keys: keys, .shared)
            defer { lock.release() }
            let identity = try IdentityKeyPair(seed: contents.identitySeed)
            let store = try MessageStore.openExisting(path: home.databasePath, key: contents.databaseKey)
            guard let bytes = try store.deviceLists.latest() else { return nil }
            let list = try DeviceList.decode(bytes, account: identity.publicKey)
            let own = try contents.additional[KeystoreContents.EntryType.deviceSeed].map { seed in
                DeviceID(deviceKey: try Ed25519.PrivateKey(seed: seed).publicKey)
            }
            return DeviceListSummary(list, thisDevice: own, linkInterrupted: try LinkInProgress.recorded(in: store)?.entry)
        }
    }

    /// Opens the channel message expected next; a later hello (someone else
    /// with the code) is ignored, anything else that does not open ends the link.
    static func openChannelMessage(_ sealed: [UInt8], _ channel: LinkChannelKeys, from direction: LinkChannelKeys.Direction,
                                   number: UInt8) throws -> LinkMessage? {
        if sealed.count == LinkKeys.greetingLength, sealed.first == LinkKeys.helloType { return nil }
        do {
            var plaintext = try channel.open(sealed, from: direction, number: number)
            defer { ConstantTime.wipe(&plaintext) }
            return try LinkMessage(decoding: plaintext)
        } catch {
            throw HushError(.invalidInput, reason: "a link message does not open: it was altered on the way, or does not come from the device that began the link",
                            suggestion: "start again with a new code; nothing was signed for it")
        }
    }

    static let linkEnded = HushError(.other, reason: "the other device ended the link (declined there, or it failed: its screen says which): nothing was written here",
                                     suggestion: "if the digits differed, someone else may have seen the code: make a new one")

    static let unexpectedLinkMessage = HushError(.invalidInput, reason: "the other device sent a link message out of order",
                                                 suggestion: "start again with a new code")
}
