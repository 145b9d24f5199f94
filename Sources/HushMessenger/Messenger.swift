import HushCrypto
import HushProtocol
import HushStore

/// The send/receive pipeline of one identity. The CLI only drives it.
///
/// Rules it keeps (see README "How a message travels"):
/// - Plaintext is sealed before anything is written to the outbox; the outbox
///   and the relay only ever hold sealed envelopes.
/// - A sent message, the outbox request and the advanced ratchet state are
///   written in one transaction; a received message, the ratchet state and
///   the sync cursor likewise, and the relay is acknowledged only after that
///   commit. A crash at any point loses nothing and duplicates nothing.
/// - The relay de-duplicates on the request id; the receiver de-duplicates on
///   the client message id.
///
/// It composes parts with one job each (`RelaySession`, `Sealer`, `Outbox`,
/// `Dispatcher`, `Inbox`, `Contacts`, `MessageRequests`,
/// `DeliveryCredentials`, `Prekeys`, `LiveSync`, `Conversations`, the
/// group and attachment parts) and owns the transaction boundary: the parts
/// write with `MessageStore.withinWrite`, joining the transaction opened
/// here, or, in the flows that must write between relay calls (and per
/// received page of envelopes, or envelope), opening a short one of their own; none nests a
/// savepoint except where a failure is swallowed on purpose.
public actor Messenger {
    public let identity: IdentityKeyPair
    let store: MessageStore
    let clock: any TimeSource
    let events = MessengerEventHub()
    let relay: RelaySession
    let registration: HomeRegistration
    let sealer: Sealer
    let outgoing: Outbox
    let credentials: DeliveryCredentials
    let prekeys: Prekeys
    let requests: MessageRequests
    let contactBook: Contacts
    let inbox: Inbox
    let receipts: DeliveryReceipts
    let live: LiveSync
    let conversationLog: Conversations
    let attachmentFiles: AttachmentFiles?
    let attachmentProgress = AttachmentProgressReporter()
    let sendingFiles: AttachmentSending
    let downloads: AttachmentDownloads
    let attachmentSweep: AttachmentSweep
    let erasure: MessageErasure
    let uploads: AttachmentUploads
    let groups: GroupMembership
    let largeGroups: LargeGroups
    let deviceLists: ContactDeviceLists

    /// `device`: this home as a linked device of the account (its key at
    /// the relay, and its certificate); nil for the account's only (or
    /// first) device, whose key at the relay is the account key.
    public init(identity: IdentityKeyPair, device: LocalDevice? = nil, store: MessageStore, transport: any RelayTransport,
                clock: any TimeSource = SystemClock(), random: any RandomSource = SystemRandom(),
                backoff: BackoffPolicy = .outbox, attachmentDirectory: String? = nil,
                maxMessageRequests: Int = Messenger.defaultMaxMessageRequests) {
        self.identity = identity
        self.store = store
        self.clock = clock
        let dependencies = MessengerDependencies(identity: identity, device: device, store: store, transport: transport, clock: clock,
                                                 random: random, events: events)
        // Each part gets what it uses when it is made, in an order with no
        // cycle: what must wait for the relay (a group member's first session,
        // an upload) is queued in the store and taken by `Outbox` at each flush.
        relay = RelaySession(dependencies)
        registration = HomeRegistration(dependencies, relay: relay)
        sealer = Sealer(dependencies)
        let sessions = SessionStarter(dependencies)
        let adoption = GroupStateAdoption(dependencies)
        groups = GroupMembership(dependencies, sealer: sealer, adoption: adoption)
        largeGroups = LargeGroups(dependencies, sealer: sealer, adoption: adoption)
        let receivedGroupStates = ReceivedGroupStates(dependencies, adoption: adoption)
        let senderKeys = GroupSenderKeys(dependencies, adoption: adoption, ownDevices: sealer.deviceFanOut.own)
        deviceLists = ContactDeviceLists(dependencies)
        attachmentFiles = attachmentDirectory.map(AttachmentFiles.init(directory:))
        attachmentSweep = AttachmentSweep(dependencies, files: attachmentFiles)
        erasure = MessageErasure(dependencies, attachmentSweep: attachmentSweep)
        uploads = AttachmentUploads(dependencies, relay: relay, sealer: sealer, files: attachmentFiles, progress: attachmentProgress)
        sendingFiles = AttachmentSending(dependencies, sealer: sealer, files: attachmentFiles, sweeper: attachmentSweep, uploads: uploads)
        downloads = AttachmentDownloads(dependencies, files: attachmentFiles, progress: attachmentProgress)
        outgoing = Outbox(dependencies, sealer: sealer, dispatcher: Dispatcher(dependencies, backoff: backoff),
                          groupDeliveries: GroupDeliveries(dependencies, sessions: sessions, sealer: sealer), uploads: uploads,
                          registration: registration)
        credentials = DeliveryCredentials(dependencies, sealer: sealer, relay: relay)
        prekeys = Prekeys(dependencies, relay: relay)
        let contactRecords = OwnContactRecords(dependencies, own: sealer.deviceFanOut.own)
        requests = MessageRequests(dependencies, sealer: sealer, outbox: outgoing, credentials: credentials, groupStates: receivedGroupStates,
                                   records: contactRecords)
        contactBook = Contacts(dependencies, requests: requests, sessions: sessions, deviceLists: deviceLists, records: contactRecords,
                               maxPendingRequests: maxMessageRequests)
        receipts = DeliveryReceipts(dependencies, sealer: sealer)
        let applier = ContentApplier(dependencies, sealer: sealer, receipts: receipts, downloads: downloads, membership: groups,
                                     largeGroups: largeGroups, receivedGroupStates: receivedGroupStates, senderKeys: senderKeys,
                                     deviceLists: deviceLists)
        let opener = EnvelopeOpener(dependencies, contacts: contactBook, prekeys: prekeys, credentials: credentials, senderKeys: senderKeys,
                                    applier: applier, deviceLists: deviceLists, ownDevices: sealer.deviceFanOut.own)
        inbox = Inbox(dependencies, opener: opener, sealer: sealer, contacts: contactBook)
        live = LiveSync(dependencies, relay: relay, registration: registration, inbox: inbox, receipts: receipts, outbox: outgoing, credentials: credentials,
                        prekeys: prekeys, erasure: erasure, deviceLists: deviceLists, deviceFanOut: sealer.deviceFanOut)
        conversationLog = Conversations(dependencies, sealer: sealer)
    }

    /// Events for live views, published after their commit, each with its
    /// seq in the event log when it is durable: every call returns a new
    /// subscription that gets every event from then on.
    public nonisolated var eventRecords: AsyncStream<MessengerEventRecord> { events.subscribe() }

    deinit { events.finish() }

    public static let syncPageSize = LiveSync.pageSize
    /// Message requests kept at once; a newer one takes the place of the one
    /// that waited longest (docs/PROTOCOL.md §10.2).
    public static let defaultMaxMessageRequests = 200

    // MARK: Sending

    /// Stores `text` as a pending message for `name`, seals it, and queues the
    /// sealed envelope in the outbox, all in one transaction; then tries to
    /// deliver the outbox. Returns the message as stored after that attempt.
    @discardableResult
    public func send(text: String, to name: String) async throws -> StoredMessage {
        try await sendReportingDelivery(text: text, to: name).message
    }

    /// `send`, also telling whether the relay refused the message in this
    /// attempt (it stays in the outbox either way, unless given up on).
    /// With `idempotencyKey`, a second send with the same key returns the
    /// first one's message and sends nothing (see `sealTextAndFlush`).
    public func sendReportingDelivery(text: String, to target: String,
                                      idempotencyKey: String? = nil) async throws -> (message: StoredMessage, refusedByRelay: Bool) {
        let name: String
        switch try resolve(target) {
        case let .group(group): return try await sendReportingDelivery(text: text, toGroup: group, idempotencyKey: idempotencyKey)
        case let .contact(contact): name = contact
        }
        return try await sealTextAndFlush(text, idempotencyKey: idempotencyKey) { try sealer.seal(.text(text), to: name, recordAs: text) }
    }

    /// Seals a text with `seal` (one transaction), flushes the outbox, and
    /// returns the message as stored with whether the relay refused it.
    ///
    /// With `idempotencyKey` (1 to 128 bytes, unique per account), the key
    /// is stored with the message in the same transaction; when the key is
    /// there already, nothing is sealed, queued or flushed, and the message
    /// it sent first is returned as it is stored now.
    func sealTextAndFlush(_ text: String, idempotencyKey: String? = nil,
                          _ seal: () throws -> MessageID) async throws -> (message: StoredMessage, refusedByRelay: Bool) {
        guard text.utf8.count <= ContentLimits.maxTextLength else {
            throw MessengerError.messageTooLong(limit: ContentLimits.maxTextLength)
        }
        if let idempotencyKey, !IdempotencyKeyRepository.lengthRange.contains(idempotencyKey.utf8.count) {
            throw MessengerError.invalidIdempotencyKey(limit: IdempotencyKeyRepository.lengthRange.upperBound)
        }
        // Nothing is sealed in a home known to be replaced by another (it could never be posted), nor
        // in a restored one before it registers (it has no session yet; "no session" advice misled).
        try registration.requireSealable()
        let (clientMessageId, repeated) = try store.write { store -> (String, Bool) in
            if let idempotencyKey, let first = try store.idempotencyKeys.clientMessageId(forKey: idempotencyKey) {
                return (first, true)
            }
            let sealed = try seal().description
            if let idempotencyKey {
                try store.idempotencyKeys.record(idempotencyKey, clientMessageId: sealed, at: clock.now())
            }
            return (sealed, false)
        }
        let report = repeated ? OutboxReport() : await outgoing.flush()
        // The flush asks the relay first: a home found replaced there posted nothing (the message is failed).
        try registration.requireNotKnownReplaced()
        guard let stored = try store.messages.message(clientMessageId: clientMessageId) else {
            throw MessengerError.unknownMessage(clientMessageId)
        }
        return (stored, report.refusedMessageIDs.contains(stored.id))
    }

    /// Seals `body` for `name` and queues it (receipts and other control content).
    @discardableResult
    func seal(_ body: ContentBody, to name: String) throws -> MessageID {
        try store.write { _ in try sealer.seal(body, to: name) }
    }

    /// Posts every due outbox request once.
    @discardableResult
    public func flushOutbox() async -> OutboxReport {
        await outgoing.flush()
    }

    /// Posts failed and pending requests now (`hush retry`), sealing texts again first.
    public func retry(requestID: String?) async throws -> OutboxReport {
        // Retrying would seal texts again for a relay that serves another home now (or, restored and
        // not registered, on no session).
        try registration.requireSealable()
        try store.write { _ in
            try outgoing.makeDueNow(requestID: requestID)
            if requestID == nil { try uploads.makeDueNow() }
        }
        return await outgoing.flush()
    }

    /// Sends a typing indicator over the live connection only.
    public func sendTyping(_ active: Bool, to name: String) async throws {
        try await live.sendTyping(active, to: name)
    }

    /// Marks the conversation with `name` read (all of it, or up to message
    /// `upTo` in its order) and sends read receipts.
    @discardableResult
    public func markRead(contact target: String, upTo messageId: Int64? = nil) async throws -> Int {
        let name: String
        switch try resolve(target) {
        case let .group(group): return try await markGroupRead(group, upTo: messageId)
        case let .contact(contact): name = contact
        }
        let marked = try store.write { _ in try conversationLog.markRead(contact: name, upTo: messageId) }
        if marked > 0 { await outgoing.flush() }
        return marked
    }

    // MARK: Receiving

    /// Decrypts and stores one envelope (see `Inbox.receive`), then seals
    /// the delivery receipt it is owed (a pass of one envelope).
    @discardableResult
    public func receive(_ envelope: MailboxEnvelope) throws -> ReceiveOutcome {
        let outcome = try inbox.receive(envelope)
        receipts.sealOwed()
        return outcome
    }

    /// Handles an ephemeral envelope (typing): never stored as a message.
    public func receiveEphemeral(_ bytes: [UInt8]) {
        inbox.receiveEphemeral(bytes)
    }

    /// Flushes the outbox, fetches and stores everything waiting, acknowledges it, flushes again.
    @discardableResult
    public func sync() async throws -> SyncReport {
        let newest = try store.messages.newestId()
        var report = try await live.sync()
        // Notices this client wrote into a conversation are not messages someone sent.
        report.newMessages = try store.messages.incomingCount(after: newest, excluding: [DisappearingTimer.contentType, DeviceListNotice.contentType])
        // Only when the user opted in (`hush attachments --auto-download MIB`).
        await downloads.autoDownload()
        return report
    }

    /// Stays connected until cancelled, reconnecting with backoff. A pushed
    /// message's receipt and acknowledgement follow a few milliseconds later
    /// (`LiveSync.runPushSettling`), so its event is told first.
    public func runLive() async {
        let settling = Task { await self.live.runPushSettling() }
        await live.runLive()
        // Awaited, not only cancelled: a seal it is in the middle of commits
        // before the caller goes on (and perhaps closes the store).
        settling.cancel()
        await settling.value
    }

    /// Retries due outbox requests until cancelled (the live view runs it beside `runLive`).
    public func runOutboxRetries() async {
        await live.runOutboxRetries()
    }

    /// Downloads received files within the opt-in limit as they arrive, until
    /// cancelled (the live view runs it beside `runLive`): a file pushed to a
    /// daemon is ready without anyone running `hush sync`. Each pass takes
    /// every waiting file (`AttachmentDownloads.autoDownload`), so one pass
    /// serves a burst of arrivals; with the opt-in off a pass is one query.
    public func runAutoDownloads() async {
        let arrivals = events.subscribe()
        await downloads.autoDownload()
        for await record in arrivals {
            switch record.event {
            case let .received(message, _) where message.contentType == "attachment",
                 let .groupReceived(message, _, _) where message.contentType == "attachment":
                await downloads.autoDownload()
            case .connection(online: true), .missed:
                // Back online, or events were not seen: whatever waits.
                await downloads.autoDownload()
            default:
                continue
            }
            if Task.isCancelled { return }
        }
    }

    // MARK: Registration

    /// Registers this identity with the relay: its prekeys (the private halves
    /// kept in the store) and our delivery credential.
    ///
    /// `oneTimePrekeys` (0 … `PrekeyPolicy.batchSize`, of each kind) is for a
    /// client that only writes first and is rarely written to first, as the
    /// tests' scripted strangers are: first contacts then fall back on the
    /// last-resort prekeys, and the first sync tops the batch up anyway. An
    /// ML-KEM key pair each is most of what registering costs.
    ///
    /// `renewingPrekeys` is for a home restored from a backup: new signed and
    /// last-resort prekeys, and one-time ids no other home of the key uses
    /// (`Prekeys.publish(renewing:)`).
    public func register(oneTimePrekeys: Int = PrekeyPolicy.batchSize, renewingPrekeys: Bool = false) async throws {
        try await prekeys.publish(oneTimeCount: oneTimePrekeys, renewing: renewingPrekeys)
        try await credentials.register()
        try store.write { store in try store.settings.set(SettingsRepository.Name.registration, to: "registered") }
    }

    /// Puts back the relay URL, registration state and login token (nil
    /// removes each): a failed registration with another relay leaves the
    /// account as it was.
    public func setRelaySettings(url: String?, registration: String?, sessionToken: String?) throws {
        try store.write { store in
            try store.settings.set(SettingsRepository.Name.relayURL, to: url)
            try store.settings.set(SettingsRepository.Name.registration, to: registration)
            try store.settings.set(SettingsRepository.Name.sessionToken, to: sessionToken)
        }
    }

    public func isRegistered() throws -> Bool {
        try store.settings.value(SettingsRepository.Name.registration) == "registered"
    }

    /// Whether this home was restored from a backup and has not registered
    /// with the relay since (§19.4).
    public func isRestoredNotRegistered() -> Bool {
        registration.isRestoredNotRegistered
    }

    /// When another home of this key registered with the relay (ms since
    /// 1970), as this home learned it; nil while it is the relay's (§19.4).
    public func homeReplacedAt() -> Int64? {
        registration.replacedAt
    }

    /// The error every relay use ends with in a home known to be replaced;
    /// nil while it is the relay's. Asks the relay nothing and writes
    /// nothing (a daemon asks it for every new subscriber).
    public func homeReplacement() -> MessengerError? {
        registration.replacement
    }
}
