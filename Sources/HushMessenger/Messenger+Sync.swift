import HushCrypto
import HushProtocol
import HushStore

/// What `sync` did.
public struct SyncReport: Sendable, Equatable {
    public var received = 0
    /// Set aside with no way to recover them (unknown sender, no session, a replay).
    public var quarantined = 0
    /// Set aside, and their senders asked to send them again (docs/PROTOCOL.md §10.1).
    public var resendRequested = 0
    /// Failed for a cause on our side; left at the relay and tried again next time.
    public var deferred = 0
    /// From blocked contacts: dropped unread (and acknowledged).
    public var dropped = 0
    public var outbox = OutboxReport()
}

extension Messenger {
    public static let syncPageSize = 100
    /// How long the relay keeps an envelope at most (its default retention).
    static let relayRetentionMilliseconds: Int64 = 30 * 24 * 3600 * 1000

    /// Flushes the outbox, then fetches, decrypts, stores and acknowledges
    /// everything waiting after the sync cursor, page by page; then flushes
    /// the receipts that produced, and tops up prekeys.
    @discardableResult
    public func sync() async throws -> SyncReport {
        var report = SyncReport()
        // A decryption error can only name an envelope the relay still held.
        try store.resends.forgetEnvelopes(sealedBefore: clock.now() - Messenger.relayRetentionMilliseconds)
        // Before anything goes out: a credential replaced after a block must be
        // registered before contacts are handed the new one.
        try? await withdrawRevokedCredentials()
        let first = await flushOutbox()
        // From the start of the mailbox, not from the cursor: whatever the relay
        // still holds at or below the cursor was processed by a run that died
        // before its acknowledgement (or by another process whose ack is in
        // flight). It is acknowledged below without being processed again,
        // instead of staying at the relay until it expires.
        var after: Int64 = 0
        while true {
            let page = try await relayCall { () async throws(DeliveryFailure) -> MailboxPage in
                try await transport.fetch(after: after, limit: Messenger.syncPageSize)
            }
            if let last = page.envelopes.last { after = max(after, last.serverID) }
            var handled: [Int64] = []
            var localFailure: (any Error)?
            for envelope in page.envelopes {
                do {
                    switch try receive(envelope) {
                    case .stored: report.received += 1
                    case .quarantined: report.quarantined += 1
                    case .resendRequested: report.resendRequested += 1
                    case .dropped: report.dropped += 1
                    case .alreadyProcessed: break
                    case .deferred:
                        // Ours to fix, not the envelope's: the relay keeps it.
                        report.deferred += 1
                        continue
                    }
                    handled.append(envelope.serverID)
                } catch {
                    // Our own database failed: stop here; the relay keeps this
                    // envelope and everything after it for the next sync.
                    localFailure = error
                    break
                }
            }
            if !handled.isEmpty {
                // Only now, after the commits above, may the relay delete them.
                try await relayCall { () async throws(DeliveryFailure) in try await transport.acknowledge(handled) }
            }
            if let localFailure { throw localFailure }
            guard page.hasMore, !page.envelopes.isEmpty else { break }
        }
        // The report covers both passes: what the first one posted (the user's
        // pending messages) counts as much as the receipts the second one posts.
        var outbox = await flushOutbox()
        outbox.sent += first.sent
        outbox.failed += first.failed
        outbox.retrying = (try? store.outbox.items(status: .pending).count) ?? max(outbox.retrying, first.retrying)
        report.outbox = outbox
        if prekeysMayNeedRefill, (try? await replenishPrekeys()) != nil { prekeysMayNeedRefill = false }
        return report
    }

    /// Stays connected: processes pushed envelopes as they arrive (by syncing
    /// after the cursor, so nothing is skipped or processed twice), typing
    /// indicators, and due outbox retries; reconnects with backoff capped at
    /// 30 s. Returns when the task is cancelled.
    public func runLive() async {
        var failures = 0
        while !Task.isCancelled {
            do {
                let stream = try await relayCall { () async throws(DeliveryFailure) -> AsyncStream<TransportEvent> in
                    try await transport.connect()
                }
                failures = 0
                emit(.connection(online: true))
                _ = try? await sync()
                for await event in stream {
                    switch event {
                    case .envelope:
                        _ = try? await sync()
                    case let .ephemeral(bytes):
                        receiveEphemeral(bytes)
                    case .disconnected:
                        break
                    }
                    if Task.isCancelled { break }
                }
            } catch {
                failures += 1
            }
            emit(.connection(online: false))
            guard !Task.isCancelled else { return }
            try? await clock.sleep(milliseconds: max(100, BackoffPolicy.reconnect.delay(forAttempt: max(failures, 1), using: random)))
        }
    }

    /// Retries due outbox requests until cancelled (the live view runs it beside `runLive`).
    public func runOutboxRetries() async {
        while !Task.isCancelled {
            let report = await flushOutbox()
            let wait = report.nextAttemptAt.map { max(100, $0 - clock.now()) } ?? 1_000
            try? await clock.sleep(milliseconds: min(wait, 5_000))
        }
    }
}
