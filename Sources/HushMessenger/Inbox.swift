import HushCrypto
import HushDatabase
import HushProtocol
import HushStore

/// Receiving one envelope: opened and applied (`EnvelopeOpener`), deferred
/// when the cause of a failure is ours, or quarantined when the envelope
/// cannot be used. Decides what is safe to acknowledge at the relay.
final class Inbox {
    private let dependencies: MessengerDependencies
    private let opener: EnvelopeOpener
    private let sealer: Sealer
    private let contacts: Contacts
    private var store: MessageStore { dependencies.store }

    init(_ dependencies: MessengerDependencies, opener: EnvelopeOpener, sealer: Sealer, contacts: Contacts) {
        self.dependencies = dependencies
        self.opener = opener
        self.sealer = sealer
        self.contacts = contacts
    }

    /// Decrypts and stores one envelope. The message, the advanced ratchet
    /// state, the consumed one-time prekeys and the sync cursor are written in
    /// one transaction; when the envelope cannot be used, only a quarantine
    /// record is written, so the session still decrypts the next genuine one.
    ///
    /// A failure of our own database (disk full, locked, damaged) is not the
    /// envelope's fault: it is rethrown, nothing is quarantined, the cursor
    /// stays, and the caller must not acknowledge, so the relay keeps it.
    ///
    /// The "already processed" check runs inside each write transaction (an
    /// immediate one: the write lock), so two processes syncing one home at
    /// once never both process an envelope; the second sees the first's
    /// cursor, instead of failing to decrypt a message its ratchet already
    /// consumed and reporting it as replayed.
    ///
    /// An envelope that fails for a cause on our side (`missingLocalState`) is
    /// deferred: recorded, not acknowledged, and tried again by the next sync
    /// (the relay still holds it), never dropped for a fault that is ours.
    ///
    /// With `durability: .deferred` (a pushed envelope) the commit does not
    /// wait for the disk, so the message's event goes out a fsync sooner;
    /// the caller must then make it durable (`MessageStore.syncDeferredWrites`)
    /// before acknowledging the envelope.
    func receive(_ envelope: MailboxEnvelope, durability: Database.Durability = .synced) throws -> ReceiveOutcome {
        do {
            if durability == .deferred, let outcome = try receiveDeferred(envelope) { return outcome }
            return try store.withinWrite { store in try apply(envelope, in: store) }
        } catch where Self.isLocalStorageFailure(error) {
            throw error
        } catch MessengerError.missingLocalState(let reason) {
            return try deferEnvelope(envelope, reason: reason, outcome: .deferred(reason: reason))
        } catch MessengerError.awaitingGroupKey(let reason) {
            return try deferEnvelope(envelope, reason: reason, outcome: .waitingForGroupKey(reason: reason))
        } catch MessengerError.awaitingAcceptance(let reason) {
            return try deferEnvelope(envelope, reason: reason, outcome: .waitingForAcceptance(reason: reason))
        } catch {
            return try setAside(envelope, error)
        }
    }

    /// Receives `envelopes` (a page of the mailbox, in order) in one
    /// transaction, when every one of them is stored, dropped or already
    /// processed: one commit, and the pages their rows share written once,
    /// instead of one of each per envelope. Anything else (an envelope to
    /// defer or set aside, a failure of our database) rolls the whole page
    /// back and returns nil; the caller then receives them one at a time
    /// (`receive`), so each gets its own outcome as before. Either way
    /// nothing is acknowledged that did not commit.
    func receiveTogether(_ envelopes: [MailboxEnvelope]) -> [ReceiveOutcome]? {
        try? store.write { store in try envelopes.map { try apply($0, in: store) } }
    }

    /// Seqs one envelope's events may take at most (a message, a request,
    /// a group change: a handful), kept reserved before a deferred receive.
    static let seqsPerReceive: Int64 = 64

    private struct SeqReservationExceeded: Error {}

    /// `apply` in a commit that does not wait for the disk, whose events
    /// take their seqs from the reserved range (`EventLogRepository.reserveSeqs`);
    /// nil, rolled back, when they would not fit (the caller then receives
    /// it with a synced commit).
    private func receiveDeferred(_ envelope: MailboxEnvelope) throws -> ReceiveOutcome? {
        try store.events.reserveSeqs(Self.seqsPerReceive)
        do {
            return try store.write(durability: .deferred) { store in
                let outcome = try apply(envelope, in: store)
                guard try store.events.isWithinReservation() else { throw SeqReservationExceeded() }
                return outcome
            }
        } catch is SeqReservationExceeded {
            return nil
        }
    }

    /// Opens and applies one envelope inside the caller's write
    /// transaction, and moves the sync cursor past it.
    private func apply(_ envelope: MailboxEnvelope, in store: MessageStore) throws -> ReceiveOutcome {
        if try Self.alreadyProcessed(envelope, in: store) { return .alreadyProcessed }
        let result = try opener.open(envelope)
        try store.quarantine.resolveDeferred(serverId: envelope.serverID)
        try store.settings.advanceSyncCursor(to: envelope.serverID)
        return result == .applied ? .stored : .dropped
    }

    /// Keeps an envelope that failed for a cause on our side at the relay
    /// (recorded, not acknowledged) for the next sync to try again.
    private func deferEnvelope(_ envelope: MailboxEnvelope, reason: String, outcome: ReceiveOutcome) throws -> ReceiveOutcome {
            let deferred: Bool = try store.withinWrite { store in
                if try Self.alreadyProcessed(envelope, in: store) { return false }
                try store.quarantine.deferEnvelope(serverId: envelope.serverID, envelope: envelope.bytes, reason: reason,
                                                   at: dependencies.clock.now())
                try store.settings.advanceSyncCursor(to: envelope.serverID)
                return true
            }
            return deferred ? outcome : .alreadyProcessed
    }

    /// Handles an ephemeral envelope (typing): decrypted with the session but
    /// never stored as a message.
    func receiveEphemeral(_ bytes: [UInt8]) {
        let envelope = MailboxEnvelope(serverID: 0, relayTimestamp: dependencies.clock.now(), bytes: bytes)
        try? store.withinWrite { _ in _ = try opener.open(envelope, ephemeral: true) }
    }

    /// Quarantines an envelope that cannot be used (and tells its sender when
    /// the sealed layer names a contact); safe to acknowledge.
    private func setAside(_ envelope: MailboxEnvelope, _ error: any Error) throws -> ReceiveOutcome {
        let reason = Self.quarantineReason(for: error)
        let reported: Bool? = try store.withinWrite { store in
            // Another process may have stored it between the two transactions.
            if try Self.alreadyProcessed(envelope, in: store) { return nil }
            try store.quarantine.resolveDeferred(serverId: envelope.serverID)
            let reported = reportUndecryptable(envelope)
            try store.quarantine.add(serverId: envelope.serverID, envelope: envelope.bytes, reason: reason, at: dependencies.clock.now())
            try store.settings.advanceSyncCursor(to: envelope.serverID)
            try dependencies.emit(.quarantined(reason: reason, senderAsked: reported))
            return reported
        }
        guard let reported else { return .alreadyProcessed }
        return reported ? .resendRequested(reason: reason) : .quarantined(reason: reason)
    }

    /// Receiver side of decryption errors (docs/PROTOCOL.md §10.1), inside
    /// the transaction that sets the envelope aside: when the sealed layer
    /// names a contact we hold a session with (or, for a group envelope, the
    /// message was signed by a member's chain we hold but its key is gone),
    /// the envelope's SHA-256 is sealed back to them so they can send it
    /// again. An envelope that names nobody, or whose exact bytes were set
    /// aside before (a replay), is not answered. Returns whether the sender
    /// was told.
    private func reportUndecryptable(_ envelope: MailboxEnvelope) -> Bool {
        // Another device of ours: asked the same way, on the session between the two (§20.11).
        if (try? store.quarantine.contains(envelope: envelope.bytes)) == false, let asked = opener.askOwnDevice(about: envelope.bytes) {
            return asked
        }
        guard let sender = opener.senderToAsk(about: envelope.bytes),
              let contact = try? contacts.contact(forIdentity: sender.account), contact.verification != .changed,
              contact.standing == .accepted,
              (try? store.quarantine.contains(envelope: envelope.bytes)) == false else { return false }
        let error = ContentBody.decryptionError(envelopeDigest: SHA256.hash(envelope.bytes))
        // Best effort: failing to report must not stop the envelope being set
        // aside. The one savepoint on this path, on purpose: the failure is
        // swallowed, so a half-written seal (an envelope queued without its
        // advanced session) must be rolled back on its own.
        if let device = sender.device {
            // To the device that sealed it, which alone can send it again (§20.12), on the session we hold with it.
            return (try? store.write { _ in
                let content = Content(id: MessageID.random(using: dependencies.random), sentAt: UInt64(dependencies.clock.now()), body: error)
                return try sealer.deviceFanOut.seal(content.encoded(), to: device.rawRepresentation, of: contact,
                                                    conversation: dependencies.conversation(with: contact), messageId: nil, resendable: false)
            }) == true
        }
        // On the account key's session: not once the account key is retired (§20.14), whose device alone could resend it.
        guard (try? store.sessions.load(contactId: contact.id)) != nil, (try? dependencies.accountKeyRetired(contact)) == false else { return false }
        return (try? store.write { _ in try sealer.seal(error, to: contact.name) }) != nil
    }

    /// At or below the sync cursor, and not deferred: stored or set aside for
    /// good by an earlier run.
    private static func alreadyProcessed(_ envelope: MailboxEnvelope, in store: MessageStore) throws -> Bool {
        guard envelope.serverID <= (try store.settings.syncCursor() ?? 0) else { return false }
        return try !store.quarantine.isDeferred(serverId: envelope.serverID)
    }

    /// Errors of our own database, as opposed to an unusable envelope.
    static func isLocalStorageFailure(_ error: any Error) -> Bool {
        error is DatabaseError || error is StoreError
    }

    static func quarantineReason(for error: any Error) -> String {
        switch error {
        case let error as ProtocolError:
            switch error {
            case .decryptionFailed: return "could not be decrypted: tampered with, replayed, or from an unknown session"
            case .messageGapTooLarge: return "too many messages were skipped in one chain (over the protocol's bound)"
            case .senderMismatch: return "the sender inside does not match the session"
            default: return "refused by the protocol: \(error.description)"
            }
        case let error as MessengerError: return error.description
        default: return "could not be stored: \(error)"
        }
    }
}
