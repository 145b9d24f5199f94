import HushCrypto
import HushDatabase
import HushProtocol
import HushStore

/// Fetching the mailbox page by page, the live connection with its
/// reconnects, and typing indicators over that connection.
final class LiveSync {
    private let dependencies: MessengerDependencies
    private let relay: RelaySession
    private let registration: HomeRegistration
    private let inbox: Inbox
    private let receipts: DeliveryReceipts
    private let outbox: Outbox
    private let credentials: DeliveryCredentials
    private let prekeys: Prekeys
    private let erasure: MessageErasure
    private let deviceLists: ContactDeviceLists
    private let deviceFanOut: DeviceFanOut
    private var store: MessageStore { dependencies.store }

    static let pageSize = 100
    /// How long a pushed envelope's follow-up work (the delivery receipt it
    /// is owed, making its receive durable and acknowledging it, posting
    /// the receipt, a prekey top-up) waits: the message's event goes to its
    /// subscribers first, without queueing behind that work's seals and
    /// commits, and a burst of pushes is answered with one receipt per contact.
    static let settleWindowMilliseconds: Int64 = 5
    /// While pushes keep coming, the work waits for a window without one,
    /// but never longer than this after the first push that asked for it:
    /// its seal and synced commit hold the messenger for a fsync, and a push
    /// that arrives then waits for it, so under a stream of pushes it runs
    /// once per this many milliseconds rather than after each push.
    static let settleMaxDelayMilliseconds: Int64 = 50
    /// Where `receivePushed` asks for that work while `runPushSettling` runs;
    /// nil otherwise (the work then runs at once).
    private var settleRequests: AsyncStream<Void>.Continuation?
    /// How many times pushes asked for that work (to see one come during a window).
    private var settleRequestCount = 0
    /// Pushed envelopes stored but not yet acknowledged to the relay.
    private var unacknowledged: [Int64] = []
    /// The group keys held (`GroupRepository.keysMark`) when a pushed
    /// envelope was kept waiting for its group key; nil while none waits.
    /// Pushes after it take the fast path (the cursor passed it), so nothing
    /// would try it again before the next full sync: `settlePushed` does,
    /// once a key has come since.
    private var waitingForGroupKeySince: [Int64]?
    /// How long the relay keeps an envelope at most (its default retention).
    static let relayRetentionMilliseconds: Int64 = 30 * 24 * 3600 * 1000

    init(_ dependencies: MessengerDependencies, relay: RelaySession, registration: HomeRegistration, inbox: Inbox, receipts: DeliveryReceipts, outbox: Outbox,
         credentials: DeliveryCredentials, prekeys: Prekeys, erasure: MessageErasure, deviceLists: ContactDeviceLists,
         deviceFanOut: DeviceFanOut) {
        self.dependencies = dependencies
        self.relay = relay
        self.registration = registration
        self.inbox = inbox
        self.receipts = receipts
        self.outbox = outbox
        self.credentials = credentials
        self.prekeys = prekeys
        self.erasure = erasure
        self.deviceLists = deviceLists
        self.deviceFanOut = deviceFanOut
    }

    /// Flushes the outbox, then fetches, decrypts, stores and acknowledges
    /// everything waiting after the sync cursor, page by page; then seals
    /// the delivery receipts owed (one per contact, `DeliveryReceipts`) and
    /// flushes them, and tops up prekeys. A pass that fails leaves its
    /// receipts owed to the next.
    func sync(isolation: isolated (any Actor)? = #isolation) async throws -> SyncReport {
        var report = SyncReport()
        // Before anything is fetched: what a replaced home took from the mailbox, the home
        // that replaced it would never see (docs/PROTOCOL.md §19.4).
        try await registration.requireCurrent()
        // A decryption error can only name an envelope the relay still held.
        try store.resends.forgetEnvelopes(sealedBefore: dependencies.clock.now() - Self.relayRetentionMilliseconds)
        // A left group's envelope keys serve for the relay's retention (a member far behind
        // may seal under them later still: that envelope then waits like any unopened one).
        try store.groups.forgetFormerEnvelopeKeys(keptUntilBefore: dependencies.clock.now())
        // A removed member's chains open what the relay stored before the removal: for its retention.
        try store.groups.forgetChains(closedBefore: dependencies.clock.now() - Self.relayRetentionMilliseconds)
        // Events every subscriber acknowledged (or past the log's hard bounds), a batch per sync.
        try store.events.prune(now: dependencies.clock.now(), retention: .standard)
        // Before anything goes out: a credential replaced after a block must be
        // registered before contacts are handed the new one.
        try? await credentials.withdrawRevoked()
        let first = await outbox.flush()
        let listsBefore = try? heldListsMark()
        try await drainMailbox(into: &report)
        // A group message can come before its sender's key in one page (the
        // key was deposited later, after a retry): one more pass opens it.
        if report.waitingForGroupKeys > 0, report.received > 0 {
            // What is still kept after the second pass is counted by it alone.
            report.waitingForGroupKeys = 0
            report.waitingForAcceptance = 0
            report.deferred = 0
            try await drainMailbox(into: &report)
        }
        // A list signed by a device this client did not know: the directory has the latest (§20.11).
        await deviceLists.refreshStale()
        // Sessions with contacts' devices a list named, before the receipts go to them too (§20.12);
        // our own directory is read first when a device of ours that our list does not name wrote.
        await deviceFanOut.startMissingSessions()
        // What a device the lists held here did not name yet sent waited for its list (§20.3), which
        // came in since: later in the mailbox than the envelope (from another device), or from the
        // directory read just now. One more pass opens it in this sync, not the next.
        if report.deferred > 0, let listsBefore, (try? heldListsMark()) != listsBefore {
            report.waitingForGroupKeys = 0
            report.waitingForAcceptance = 0
            report.deferred = 0
            try await drainMailbox(into: &report)
        }
        // A credential another device of ours replaced (§20.16) is registered before contacts use it here.
        try? await credentials.withdrawRevoked()
        receipts.sealOwed()
        // The report covers both passes: what the first one posted (the user's
        // pending messages) counts as much as the receipts the second one posts.
        var outboxReport = await outbox.flush()
        outboxReport.sent += first.sent
        outboxReport.failed += first.failed
        outboxReport.retrying = (try? store.outbox.items(status: .pending).count) ?? max(outboxReport.retrying, first.retrying)
        report.outbox = outboxReport
        await prekeys.replenishIfNeeded()
        // What this sync made expire (a read receipt from while we were
        // away), and the files of messages a deletion erased.
        erasure.sweepExpired(afterSync: true)
        return report
    }

    /// What changes when a device list is kept: ours (its counter) or a
    /// contact's (`ContactDeviceListRepository.changeMark`).
    private func heldListsMark() throws -> [Int64] {
        [Int64(clamping: try store.deviceLists.latestCounter() ?? 0), try store.contactDeviceLists.changeMark()]
    }

    /// Fetches the mailbox from its start, page by page, receiving each
    /// envelope and acknowledging what was handled.
    private func drainMailbox(isolation: isolated (any Actor)? = #isolation, into report: inout SyncReport) async throws {
        // From the start of the mailbox, not from the cursor: whatever the relay
        // still holds at or below the cursor was processed by a run that died
        // before its acknowledgement (or by another process whose ack is in
        // flight). It is acknowledged below without being processed again,
        // instead of staying at the relay until it expires.
        var after: Int64 = 0
        let transport = dependencies.transport
        while true {
            let page = try await relay.call { [after] () async throws(DeliveryFailure) -> MailboxPage in
                try await transport.fetch(after: after, limit: Self.pageSize)
            }
            if let last = page.envelopes.last { after = max(after, last.serverID) }
            let (handled, localFailure) = receive(page, into: &report)
            if !handled.isEmpty {
                // Only now, after the commits above, may the relay delete them.
                try await acknowledge(handled)
            }
            if let localFailure { throw localFailure }
            guard page.hasMore, !page.envelopes.isEmpty else { break }
        }
    }

    /// Receives a page's envelopes in order: in one transaction when they
    /// all go in (`Inbox.receiveTogether`), else one at a time. Returns those
    /// the relay may delete, and the failure of our own database that stopped
    /// the page, if one did: the relay keeps that envelope and everything after it.
    private func receive(_ page: MailboxPage, durability: Database.Durability = .synced,
                         into report: inout SyncReport) -> (handled: [Int64], localFailure: (any Error)?) {
        var handled: [Int64] = []
        let together = page.envelopes.count > 1 ? inbox.receiveTogether(page.envelopes) : nil
        for (index, envelope) in page.envelopes.enumerated() {
            do {
                switch try together?[index] ?? inbox.receive(envelope, durability: durability) {
                case .stored: report.received += 1
                case .quarantined: report.quarantined += 1
                case .resendRequested: report.resendRequested += 1
                case .dropped: report.dropped += 1
                case .alreadyProcessed: break
                case .deferred:
                    // Ours to fix, not the envelope's: the relay keeps it.
                    report.deferred += 1
                    continue
                case .waitingForGroupKey:
                    report.waitingForGroupKeys += 1
                    continue
                case .waitingForAcceptance:
                    report.waitingForAcceptance += 1
                    continue
                }
                handled.append(envelope.serverID)
            } catch {
                return (handled, error)
            }
        }
        return (handled, nil)
    }

    /// Tells the relay it may delete `serverIDs`, once what stored them is
    /// safe from a power loss too (a pushed envelope's commit did not wait
    /// for the disk).
    private func acknowledge(isolation: isolated (any Actor)? = #isolation, _ serverIDs: [Int64]) async throws {
        try store.syncDeferredWrites()
        let transport = dependencies.transport
        try await relay.call { () async throws(DeliveryFailure) in try await transport.acknowledge(serverIDs) }
    }

    /// Stays connected: processes pushed envelopes as they arrive (directly
    /// when nothing can be missing before them, by syncing otherwise: nothing
    /// is skipped or processed twice), typing indicators, and due outbox
    /// retries; reconnects with backoff capped at 30 s. Returns when the task
    /// is cancelled.
    func runLive(isolation: isolated (any Actor)? = #isolation) async {
        var failures = 0
        var reported: LiveSyncFailure?
        let transport = dependencies.transport
        while !Task.isCancelled {
            do {
                let stream = try await relay.call { () async throws(DeliveryFailure) -> AsyncStream<TransportEvent> in
                    try await transport.connect()
                }
                failures = 0
                // The relay answers again: what waits out a backoff from while it did not goes now, in
                // order, not up to five minutes later (a walkthrough restarted the relay under a daemon).
                _ = try? store.write { store in
                    // Only what waits because the relay did not answer: a Retry-After it gave still holds.
                    try store.outbox.makeWaitingDue(at: dependencies.clock.now(), failedWith: DeliveryFailure.unavailableDescriptionPrefix)
                }
                // The relay closes a key's sockets when another home registers it: ask again.
                registration.askAgain()
                // Announced once caught up: what arrived while we were away
                // (a contact's new delivery credential, say) is stored by then,
                // so a chat's first heartbeat can use it.
                await liveSync(reported: &reported)
                // Replaced by another home: said once (by `liveSync`), and nothing more to do here.
                if case .homeReplaced? = reported?.error as? MessengerError { return }
                dependencies.announce(.connection(online: true))
                for await event in stream {
                    switch event {
                    case let .envelope(envelope):
                        if await receivePushed(envelope) {
                            reported = nil
                        } else {
                            await liveSync(reported: &reported)
                        }
                    case let .ephemeral(bytes):
                        inbox.receiveEphemeral(bytes)
                    case .disconnected:
                        break
                    }
                    if Task.isCancelled { break }
                }
            } catch {
                failures += 1
            }
            dependencies.announce(.connection(online: false))
            guard !Task.isCancelled else { return }
            try? await dependencies.clock.sleep(milliseconds: max(100, BackoffPolicy.reconnect.delay(forAttempt: max(failures, 1),
                                                                                                     using: dependencies.random)))
        }
    }

    /// A sync of the live loop, whose failure is told to the live views
    /// instead of dropped: once, until a sync succeeds or fails otherwise
    /// (a full disk fails every push the same way). What it could not store
    /// stays at the relay, for the next push or reconnect.
    private func liveSync(isolation: isolated (any Actor)? = #isolation, reported: inout LiveSyncFailure?) async {
        do {
            let report = try await sync()
            // A group message this sync kept waiting is passed over again once its key is pushed
            // (`retryWaitingForGroupKeys`): pushes after it take the fast path (a review).
            if report.waitingForGroupKeys > 0, waitingForGroupKeySince == nil { waitingForGroupKeySince = try? store.groups.keysMark() }
            reported = nil
        } catch {
            guard !Task.isCancelled, !(error is CancellationError) else { return }
            let failure = LiveSyncFailure(error)
            guard failure != reported else { return }
            reported = failure
            dependencies.announce(.syncFailed(failure))
        }
    }

    /// The push fast path: applies a pushed envelope without fetching the
    /// mailbox when its previous id is at or below the sync cursor, that is,
    /// when every envelope the relay could hold before it was processed
    /// already (ids of one mailbox are given in commit order, so nothing can
    /// appear below it later; docs/RELAY-API.md, "push fast path"). Pushes arrive out of
    /// order at times (deposits commit and push concurrently); one whose
    /// previous id is above the cursor, or that came without one, returns
    /// false and the caller syncs. The receive is the one a sync page makes
    /// (one transaction with the cursor; a duplicate is "already processed"),
    /// but its commit does not wait for the disk, so its event reaches
    /// subscribers a fsync sooner; `settlePushed` makes it durable, then
    /// acknowledges it (over the live socket). Returns false also when our
    /// own database failed: the sync then retries it, and the relay keeps it.
    private func receivePushed(isolation: isolated (any Actor)? = #isolation, _ envelope: MailboxEnvelope) async -> Bool {
        guard let previous = envelope.previousServerID, let cursor = try? store.settings.syncCursor() ?? 0,
              cursor >= previous else { return false }
        var report = SyncReport()
        let (handled, localFailure) = receive(MailboxPage(envelopes: [envelope], hasMore: false), durability: .deferred, into: &report)
        guard localFailure == nil else { return false }
        unacknowledged.append(contentsOf: handled)
        if report.waitingForGroupKeys > 0, waitingForGroupKeySince == nil { waitingForGroupKeySince = try? store.groups.keysMark() }
        // Its acknowledgement, the receipt it is owed and a prekey it consumed: soon, not now.
        if let settleRequests {
            settleRequestCount += 1
            settleRequests.yield()
        } else {
            await settlePushed()
        }
        return true
    }

    /// What pushed envelopes leave to do: seals the delivery receipts owed
    /// (stored with the messages, so none is lost if this never runs: the
    /// next pass seals them), makes the receives durable and acknowledges
    /// them (one left unacknowledged is "already processed" at the next
    /// sync, which acknowledges it then), posts the receipts, and tops
    /// prekeys up.
    private func settlePushed(isolation: isolated (any Actor)? = #isolation) async {
        // A credential another device of ours replaced (§20.16) is registered before contacts use it here.
        try? await credentials.withdrawRevoked()
        await deviceLists.refreshStale()
        await deviceFanOut.startMissingSessions()
        await retryWaitingForGroupKeys()
        receipts.sealOwed()
        if !unacknowledged.isEmpty {
            let serverIDs = unacknowledged
            unacknowledged.removeAll()
            try? await acknowledge(serverIDs)
        }
        _ = await outbox.flush()
        await prekeys.replenishIfNeeded()
    }

    /// A pushed group message that came before its sender's key (a key
    /// the relay rate-limited, a member's session started late) is tried
    /// again once a group key has arrived since, by a pass over the mailbox:
    /// a daemon or `hush listen` stays connected for days, and left to the
    /// next full sync the message showed only after a `hush sync` by hand
    /// (a walkthrough). What still waits after the pass is watched again.
    private func retryWaitingForGroupKeys(isolation: isolated (any Actor)? = #isolation) async {
        guard let since = waitingForGroupKeySince, let now = try? store.groups.keysMark(), now != since else { return }
        waitingForGroupKeySince = nil
        var report = SyncReport()
        do {
            try await drainMailbox(into: &report)
        } catch {
            // Not fetched now (the relay, our disk): the next reconnect's or push's sync tries again.
            waitingForGroupKeySince = since
            return
        }
        if report.waitingForGroupKeys > 0 { waitingForGroupKeySince = try? store.groups.keysMark() }
    }

    /// Runs beside `runLive` until cancelled: the follow-up work of pushed
    /// envelopes, once a `settleWindowMilliseconds` window passes without a
    /// push (at most `settleMaxDelayMilliseconds` after the first push that
    /// asked for it), once for every push that came meanwhile.
    func runPushSettling(isolation: isolated (any Actor)? = #isolation) async {
        let (requests, continuation) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        settleRequests = continuation
        let windows = Int(Self.settleMaxDelayMilliseconds / Self.settleWindowMilliseconds)
        for await _ in requests {
            // Counted in windows, not read off the clock, so a clock that
            // does not move (tests) cannot keep the work waiting.
            for _ in 0..<windows {
                let requestsBefore = settleRequestCount
                try? await dependencies.clock.sleep(milliseconds: Self.settleWindowMilliseconds)
                if settleRequestCount == requestsBefore || Task.isCancelled { break }
            }
            await settlePushed()
            if Task.isCancelled { break }
        }
        settleRequests = nil
    }

    /// Retries due outbox requests until cancelled (the live view runs it
    /// beside `runLive`); on the same beat, erases messages whose
    /// disappearing timer ran out, so an open chat loses them in time.
    func runOutboxRetries(isolation: isolated (any Actor)? = #isolation) async {
        while !Task.isCancelled {
            erasure.sweepExpired()
            let report = await outbox.flush()
            let wait = report.nextAttemptAt.map { max(100, $0 - dependencies.clock.now()) } ?? 1_000
            try? await dependencies.clock.sleep(milliseconds: min(wait, 5_000))
        }
    }

    /// Sends a typing indicator over the live connection only: it is never
    /// queued or stored, and is dropped when the contact is offline. It
    /// goes to the contact's account key and to each of its devices we hold
    /// a session with (§20.12), each sealed on its own session.
    func sendTyping(isolation: isolated (any Actor)? = #isolation, _ active: Bool, to name: String) async throws {
        guard let contact = try store.contacts.contact(named: name), contact.verification != .changed, contact.standing == .accepted,
              let credential = try store.contacts.deliveryCredential(contactId: contact.id),
              // Not from a device the account revoked (§20.14): nobody would take it.
              try dependencies.thisDeviceRevokedAt() == nil else { return }
        let transport = dependencies.transport
        for (recipient, envelope) in try sealTyping(active, to: contact) {
            try? await relay.withReauthentication { () async throws(DeliveryFailure) in
                try await transport.sendEphemeral(envelope, to: recipient, credential: credential)
            }
        }
    }

    private func sealTyping(_ active: Bool, to contact: Contact) throws -> [(recipient: IdentityKey, envelope: [UInt8])] {
        let now = dependencies.clock.now()
        let content = try Content(id: MessageID.random(using: dependencies.random), sentAt: UInt64(now),
                                  body: active ? .typingStarted : .typingStopped).encoded()
        // Each ephemeral envelope takes a message number of the sending
        // chain, and one the contact misses (no socket open) is a gap it
        // bridges with skipped keys, at most RatchetLimits.maxForwardJump
        // (a chain's head, or an old chain's tail plus a new chain's head).
        // Half of it per chain keeps both within the bound, so dropped
        // typing indicators never make later messages undecryptable
        // (docs/PROTOCOL.md, Appendix B).
        func sealable(_ session: Session) -> Bool { session.ratchet.sendCount < UInt32(RatchetLimits.maxForwardJump / 2) }
        return try store.withinWrite { store in
            var sealed: [(recipient: IdentityKey, envelope: [UInt8])] = []
            // Not to a retired account key (§20.14): its device is revoked.
            if try !dependencies.accountKeyRetired(contact), case let session = try dependencies.loadSession(contactId: contact.id),
               sealable(session) {
                sealed.append((try IdentityKey(rawRepresentation: contact.identityKey), try session.seal(content, using: dependencies.random)))
                try store.sessions.save(state: session.serialized(), contactId: contact.id, at: now)
            }
            for device in try deviceFanOut.activeDevices(of: contact) {
                guard let state = try store.deviceSessions.load(contactId: contact.id, deviceKey: device),
                      let session = try? Session(serialized: state), sealable(session),
                      let key = try? IdentityKey(rawRepresentation: device) else { continue }
                sealed.append((key, try session.seal(content, using: dependencies.random)))
                try store.deviceSessions.save(state: session.serialized(), contactId: contact.id, deviceKey: device, at: now)
            }
            return sealed
        }
    }
}
