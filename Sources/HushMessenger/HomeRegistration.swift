import HushProtocol
import HushStore

/// Whether this home is still the one the relay holds for its key
/// (docs/PROTOCOL.md §19.4, "One home per key").
///
/// Two homes can hold one key: a backup restored on a new machine while the
/// old one still runs, or a copied home directory. They share one mailbox
/// and their sessions differ, so whatever one of them fetches, the other
/// never sees, and what the older one seals its contacts can no longer open
/// (they follow the newer home's sessions): before this check, the old
/// home's messages showed as sent, its contacts asked for them again, and
/// the two exchanged decryption errors at every sync for ever.
///
/// The relay tells a key's owner which registration it holds
/// (`GET /v1/prekeys/count`: its timestamp and signed prekey). A home records
/// the timestamp of its own last registration; a restored home registers a
/// signed prekey of its own. A relay holding a signed prekey this home did
/// not make, or a later registration than its own, was registered by
/// another home of the key since. This home then stops using the relay: it
/// fetches and posts nothing more (not even what waits in its outbox), and
/// says why.
final class HomeRegistration {
    private let dependencies: MessengerDependencies
    private let relay: RelaySession
    /// Whether this run has seen the relay hold our registration (asked
    /// again after a reconnect of the live connection).
    private var confirmed = false
    private var store: MessageStore { dependencies.store }

    init(_ dependencies: MessengerDependencies, relay: RelaySession) {
        self.dependencies = dependencies
        self.relay = relay
    }

    /// Throws `.homeReplaced` when another home registered this key since this
    /// one last did (checked with the relay once per run), and
    /// `.restoredNotRegistered` for a home restored from a backup that has not
    /// registered yet. A relay that cannot be asked (down, or one that does not
    /// say) proves nothing either way: the caller goes on, and the next run asks.
    func requireCurrent(isolation: isolated (any Actor)? = #isolation) async throws(MessengerError) {
        try requireNotKnownReplaced()
        guard !confirmed else { return }
        if isRestoredNotRegistered { throw .restoredNotRegistered }
        let registration = try? store.settings.value(SettingsRepository.Name.registration)
        // Never registered (no relay, or not yet): nothing at the relay is ours to compare.
        guard registration == "registered" else { return }
        let transport = dependencies.transport
        guard let counts = try? await relay.call({ () async throws(DeliveryFailure) in try await transport.prekeyCounts() }) else { return }
        confirmed = true
        // The relay is not trusted: a signed prekey our key did not sign is no registration of it (a
        // relay that lies this way could only cut the home off, for good, without this).
        guard let held = counts.registration, (try? held.signedPrekey.verify(by: dependencies.transportIdentity.publicKey)) != nil
        else { return }
        let ours = recordedTime(SettingsRepository.Name.registeredAt)
        if holdsSignedPrekey(held.signedPrekey), held.registeredAt <= ours ?? held.registeredAt {
            // A home registered before homes recorded their registrations: the one held, with
            // our signed prekey, is taken as ours.
            if ours == nil {
                try? store.write { store in try store.settings.set(SettingsRepository.Name.registeredAt, to: String(held.registeredAt)) }
            }
            return
        }
        // Another home's: a restore's (its own signed prekey), or a later one of our prekey (a copy of this home).
        confirmed = false
        try? store.write { store in try store.settings.set(SettingsRepository.Name.replacedAt, to: String(held.registeredAt)) }
        throw replaced(at: held.registeredAt)
    }

    /// Before a restored home registers (§19.4): throws `.newerHomeRegistered`
    /// when the relay holds a registration of the key made after the
    /// archive this home was restored from, or one at or after the time the
    /// archived home learnt it was replaced (an archive made in a replaced
    /// home is younger than the home that replaced it). That home is newer
    /// than this one's archive (restored since, or registered again):
    /// registering would cut it off, and what it received since is in no
    /// archive this home holds. A relay that cannot be asked, or holds
    /// nothing signed by our key, proves nothing: the registration that
    /// follows goes on.
    func requireNoNewerHome(isolation: isolated (any Actor)? = #isolation) async throws(MessengerError) {
        guard let archivedAt = recordedTime(SettingsRepository.Name.restoredFrom) else { return }
        let replacedBefore = recordedTime(SettingsRepository.Name.restoredFromReplacedHome)
        let transport = dependencies.transport
        guard let counts = try? await relay.call({ () async throws(DeliveryFailure) in try await transport.prekeyCounts() }),
              let held = counts.registration, (try? held.signedPrekey.verify(by: dependencies.transportIdentity.publicKey)) != nil,
              held.registeredAt > archivedAt || replacedBefore.map({ held.registeredAt >= $0 }) == true else { return }
        throw .newerHomeRegistered(at: held.registeredAt, archiveMadeAt: archivedAt)
    }

    /// Whether the signed prekey the relay holds is one this home made.
    private func holdsSignedPrekey(_ prekey: SignedPrekey) -> Bool {
        guard let stored = try? store.prekeys.prekey(kind: PrekeyKind.signedX25519.storeName, id: Int64(prekey.id)) else { return false }
        return stored.publicKey == prekey.publicKey
    }

    /// Throws `.homeReplaced` when this home already knows another one replaced
    /// it; asks nothing of the relay (a send seals and commits before it talks
    /// to the relay, so that a relay that hangs loses nothing).
    func requireNotKnownReplaced() throws(MessengerError) {
        if let replacedAt = dependencies.homeReplacedAt() { throw replaced(at: replacedAt) }
    }

    /// `requireNotKnownReplaced`, and `.restoredNotRegistered` for a home
    /// restored from a backup that has not registered yet (a restore made
    /// while the relay was down): it holds no session to seal on, and until
    /// it registers the old home may still read the mailbox. Asks nothing
    /// of the relay: for what seals (a send, a retry) before it flushes.
    /// Also `.deviceRevoked` on a device the account's list revokes
    /// (§20.14): a group made, renamed or left there, or a display name set,
    /// would be posted nowhere (the outbox of a revoked device gives up) and
    /// leave this device apart from the others; a walkthrough found them
    /// "done" there while nothing reached anyone.
    func requireSealable() throws(MessengerError) {
        try dependencies.requireHomeInUse()
        if let revokedAt = try? dependencies.thisDeviceRevokedAt() { throw .deviceRevoked(revokedAt: revokedAt) }
    }

    /// Whether this home was restored from a backup and has not registered since.
    var isRestoredNotRegistered: Bool { dependencies.isRestoredNotRegistered }

    /// The error a home known to be replaced ends every relay use with (asks
    /// and writes nothing); nil while the relay's registration is ours.
    var replacement: MessengerError? { replacedAt.map(dependencies.replacedError(at:)) }

    /// Whether this home already knows another one replaced it (asks nothing).
    var isKnownReplaced: Bool { replacedAt != nil }
    /// When the other home registered, once this home knows it (asks nothing).
    var replacedAt: Int64? { dependencies.homeReplacedAt() }

    /// `requireCurrent` as a yes or no, for the outbox (which reports, never throws).
    func allowsRelayUse(isolation: isolated (any Actor)? = #isolation) async -> Bool {
        do { try await requireCurrent() } catch { return false }
        return true
    }

    /// The live connection came back: the relay may have a newer registration (it
    /// closes a key's sockets when another home registers it).
    func askAgain() { confirmed = false }

    /// How far past its clock a home records a registration it is about to
    /// send (`Prekeys.publish`): the relay takes a registration's timestamp
    /// only within 300 s of its own clock (RELAY-API), so the record is at
    /// least the timestamp the relay will hold.
    static let inFlightMarginMilliseconds: Int64 = 300_000

    /// The outbox's last error for what a replaced home holds back.
    static let reason = "not sent: another home registered this account's key since (a restore or a copied home)"

    /// The error, once what waits in the outbox (which will never be posted
    /// from here) is marked failed, so the user sees it as not sent. What was
    /// sent after the other home registered went out on sessions the contacts
    /// may have left for that home's: counted, for the error to say.
    func replaced(at time: Int64) -> MessengerError {
        try? store.write { store in
            for item in try store.outbox.items(status: .pending) {
                try store.sendQueue.markFailed(requestId: item.requestId, error: Self.reason, nextAttemptAt: nil)
            }
        }
        return dependencies.replacedError(at: time)
    }

    private func recordedTime(_ name: String) -> Int64? {
        (try? store.settings.value(name)).flatMap { $0 }.flatMap { Int64($0) }
    }
}
