import HushMessenger
import HushStore
import Synchronization

/// Publishes every durable event of the home once to this process's
/// subscribers, whichever process stored it.
///
/// Several processes may use one home at once (`hush chat` beside `hush
/// listen`, one-shot commands beside either). Each keeps its own live
/// connection, so a pushed envelope is stored by whichever process takes it
/// first; the other finds it already processed and has nothing to tell its
/// subscribers. Before, a chat and a listener on one home each showed only
/// the messages their own process happened to store. So this process's own
/// events are published as the messenger emits them (no delay), and while
/// the account is live a follower reads the event log for what other
/// processes committed and publishes that too. Each seq goes out once: the
/// one path skips what the other already published.
final class EventFanIn: Sendable {
    /// How often the follower looks at the log while live: a view on a
    /// shared home shows another process's message within this.
    static let pollInterval: Duration = .milliseconds(200)
    /// How long the follower remembers a seq it published, in case this
    /// process's own emission of it comes later (it normally follows its
    /// commit within microseconds).
    static let ownEmissionGrace: Milliseconds = 60_000

    private struct State {
        /// The follower has read the log through this seq (nil until it starts).
        var cursor: Int64?
        /// Seqs this process emitted and published, above `cursor`: the follower skips them.
        var publishedOwn: Set<Int64> = []
        /// Seqs the follower published, with when: this process's own emission of one is skipped.
        var publishedFromLog: [Int64: Milliseconds] = [:]
    }

    private let state = Mutex(State())
    /// Every event, for `HushAccount.events()`.
    let hub = EventHub<HushEvent>(bufferLimit: defaultEventBufferLimit) { .missed(count: $0) }
    /// The same events with their seqs, for `eventRecords(after:)`.
    let recordHub = EventHub<HushStreamedEvent>(bufferLimit: defaultEventBufferLimit) { .live(.missed(count: $0)) }

    /// An event this process's messenger emitted.
    func publishOwn(_ record: MessengerEventRecord) {
        state.withLock { state in
            if let seq = record.seq, record.event.logEntry != nil {
                if state.publishedFromLog.removeValue(forKey: seq) != nil { return }
                if let cursor = state.cursor, seq > cursor { state.publishedOwn.insert(seq) }
            }
            hub.publish(HushEvent(record.event))
            recordHub.publish(HushStreamedEvent(record))
        }
    }

    /// Reads the log for events other processes stored, until cancelled.
    /// Starts from the log's latest seq: what was stored before is state
    /// the subscriber reads, not news.
    func follow(_ messenger: Messenger, clock: @Sendable () -> Milliseconds) async {
        // Own events published while the start is read are remembered (a cursor below every seq),
        // so the follower does not publish them again once it reads past the start.
        state.withLock { $0.cursor = $0.cursor ?? Int64.min }
        defer { state.withLock { $0 = State() } }
        var started = false
        while !Task.isCancelled {
            if !started, let start = try? await messenger.latestEventSeq() {
                state.withLock { state in
                    state.cursor = max(state.cursor ?? start, start)
                    state.publishedOwn = state.publishedOwn.filter { $0 > start }
                }
                started = true
            }
            try? await Task.sleep(for: Self.pollInterval)
            // A failed read (the database busy, say) is tried again at the next tick.
            if started { try? await catchUp(messenger, now: clock()) }
        }
    }

    private func catchUp(_ messenger: Messenger, now: Milliseconds) async throws {
        while let cursor = state.withLock({ $0.cursor }), try await messenger.latestEventSeq() > cursor {
            let logged: [LoggedEvent]
            do {
                logged = try await messenger.loggedEvents(after: cursor, limit: 256)
            } catch StoreError.eventsPruned {
                // Pruned past the cursor (seqs reserved and never used, or a long quiet spell): go on
                // from where the log starts now, or every later tick would fail the same way.
                let pruned = try await messenger.prunedEventSeq()
                state.withLock { state in
                    state.cursor = max(cursor, pruned)
                    state.publishedOwn = state.publishedOwn.filter { $0 > pruned }
                }
                continue
            }
            guard let last = logged.last else {
                // Seqs given out (reserved) without an event yet: nothing to publish.
                state.withLock { state in state.publishedOwn = state.publishedOwn.filter { $0 > cursor } }
                return
            }
            state.withLock { state in
                for entry in logged where state.publishedOwn.remove(entry.seq) == nil {
                    state.publishedFromLog[entry.seq] = now
                    let event = HushEvent(entry.entry)
                    hub.publish(event)
                    recordHub.publish(.record(HushEventRecord(entry)))
                }
                state.cursor = last.seq
                state.publishedOwn = state.publishedOwn.filter { $0 > last.seq }
                state.publishedFromLog = state.publishedFromLog.filter { now - $0.value < Self.ownEmissionGrace }
            }
        }
    }
}
