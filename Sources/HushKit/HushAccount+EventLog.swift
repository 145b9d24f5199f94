import HushMessenger
import HushStore

/// The durable event log: replay after a seq, then live; acknowledgements
/// by named subscribers; pruning.
extension HushAccount {
    /// Subscriber names: 1 to 64 bytes of UTF-8, no control characters.
    public static let maxEventSubscriberNameLength = 64

    /// Up to `limit` (1 to 1,000) durable events after `seq`, oldest first
    /// (after 0: from the start of the log).
    ///
    /// - Throws: `HushError` of kind `eventsPruned` when events after `seq`
    ///   were pruned already (its reason names the seq to resume after,
    ///   also `prunedEventSeq()`: read the state again first), or
    ///   `invalidInput` for a limit out of range.
    public func events(after seq: UInt64, limit: Int) async throws(HushError) -> [HushEventRecord] {
        guard (1...1_000).contains(limit) else {
            throw HushError(.invalidInput, reason: "a page of events holds 1 to 1000, not \(limit)")
        }
        return try await translatingErrors {
            try await messenger.loggedEvents(after: try Self.logSeq(seq), limit: limit).map(HushEventRecord.init)
        }
    }

    /// Every durable event after `seq` (nil: from now on), read from the
    /// log, then live as they are stored: in order, each once, with no gap
    /// at the seam (the stream subscribes to the live feed before it reads
    /// the log, and drops live events it already replayed). Live-only
    /// events come as `.live` between them.
    ///
    /// The stream reads the log as the subscriber asks for more, so a large
    /// backlog is never held in memory. A subscriber slower than the live
    /// feed gets `.live(.missed(count:))`, then what it missed from the log.
    /// It ends at `close()`, when the subscriber stops iterating, or with
    /// a `HushError` of kind `eventsPruned` when the events after `seq` (or
    /// after the last it delivered) were pruned meanwhile: read the state
    /// again and resume after `prunedEventSeq()`.
    public func eventRecords(after seq: UInt64?) -> AsyncThrowingStream<HushStreamedEvent, any Error> {
        let replay = EventReplay(messenger: messenger, live: recordHub.subscribe(), after: seq.map { Int64(clamping: $0) })
        return AsyncThrowingStream(unfolding: { try await replay.next() })
    }

    /// The highest seq the account has given (0 when none): a new client
    /// that reads the state now resumes after it.
    public func latestEventSeq() async throws(HushError) -> UInt64 {
        try await translatingErrors { UInt64(try await messenger.latestEventSeq()) }
    }

    /// The highest seq pruned from the log (0 when none): a replay starts
    /// after it, never before.
    public func prunedEventSeq() async throws(HushError) -> UInt64 {
        try await translatingErrors { UInt64(try await messenger.prunedEventSeq()) }
    }

    /// Records that the client named `subscriber` processed every event
    /// through `seq`. The first acknowledgement registers it: from then on
    /// events are pruned only once it acknowledged them (or past the log's
    /// hard bounds: 30 days, a million events). A cursor never moves back.
    /// Returns the subscriber's cursor as it is now.
    ///
    /// - Throws: `HushError` of kind `invalidInput` for a name out of
    ///   bounds or a seq above `latestEventSeq()` (nothing is changed).
    @discardableResult
    public func acknowledgeEvents(through seq: UInt64, subscriber: String) async throws(HushError) -> UInt64 {
        let name = try Self.checkedSubscriber(subscriber)
        return try await translatingErrors {
            UInt64(try await messenger.acknowledgeEvents(through: try Self.logSeq(seq), subscriber: name).acknowledgedSeq)
        }
    }

    /// The last seq `subscriber` acknowledged, or nil when it never did.
    public func eventCursor(subscriber: String) async throws(HushError) -> UInt64? {
        let name = try Self.checkedSubscriber(subscriber)
        return try await translatingErrors { try await messenger.eventCursor(subscriber: name).map { UInt64($0.acknowledgedSeq) } }
    }

    /// Forgets `subscriber`: pruning no longer waits for it. False when it was not registered.
    @discardableResult
    public func removeEventSubscriber(_ subscriber: String) async throws(HushError) -> Bool {
        let name = try Self.checkedSubscriber(subscriber)
        return try await translatingErrors { try await messenger.removeEventSubscriber(name) }
    }

    /// Deletes the events every registered subscriber acknowledged that are
    /// older than `age` (and any past the hard bounds); returns how many
    /// went. A sync prunes with a week; this is for maintenance.
    @discardableResult
    public func pruneEvents(acknowledgedOlderThan age: Duration = .seconds(7 * 86_400)) async throws(HushError) -> Int {
        let milliseconds = age.components.seconds * 1_000 + age.components.attoseconds / 1_000_000_000_000_000
        guard milliseconds >= 0 else { throw HushError(.invalidInput, reason: "an age to prune events at cannot be negative") }
        var retention = EventRetention.standard
        retention.acknowledgedAge = milliseconds
        return try await translatingErrors { try await messenger.pruneEvents(retention: retention) }
    }

    private static func checkedSubscriber(_ name: String) throws(HushError) -> String {
        guard (1...maxEventSubscriberNameLength).contains(name.utf8.count),
              !name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw HushError(.invalidInput, reason: "a subscriber's name has 1 to \(maxEventSubscriberNameLength) bytes and no control characters")
        }
        return name
    }

    private static func logSeq(_ seq: UInt64) throws(HushError) -> Int64 {
        guard let value = Int64(exactly: seq) else { throw HushError(.invalidInput, reason: "no event has seq \(seq)") }
        return value
    }
}

/// The state of one `eventRecords(after:)` stream: the log read page by
/// page, then the live feed, deduplicated by seq.
actor EventReplay {
    private let messenger: Messenger
    private var live: AsyncStream<HushStreamedEvent>.Iterator
    /// The last seq delivered; nil until the first call when the stream
    /// starts from now (then the latest seq, read after subscribing).
    private var after: Int64?
    private var page: [HushEventRecord] = []
    private var readingLog = true
    static let pageSize = 256

    init(messenger: Messenger, live: AsyncStream<HushStreamedEvent>, after: Int64?) {
        self.messenger = messenger
        self.live = live.makeAsyncIterator()
        self.after = after
    }

    func next() async throws -> HushStreamedEvent? {
        do {
            return try await nextItem()
        } catch {
            throw HushError(wrapping: error)
        }
    }

    private func nextItem() async throws -> HushStreamedEvent? {
        while true {
            if !page.isEmpty { return .record(page.removeFirst()) }
            let known: Int64
            if let after {
                known = after
            } else {
                known = try await messenger.latestEventSeq()
                after = known
            }
            if readingLog {
                let logged = try await messenger.loggedEvents(after: known, limit: Self.pageSize)
                guard let last = logged.last else {
                    readingLog = false
                    continue
                }
                after = last.seq
                page = logged.map(HushEventRecord.init)
                continue
            }
            var iterator = live
            let item = await iterator.next(isolation: self)
            live = iterator
            guard let item else { return nil }
            switch item {
            case let .record(record):
                let seq = Int64(clamping: record.seq)
                if seq <= known { continue }
                if seq == known + 1 {
                    after = seq
                    return item
                }
                // A jump: events another process stored, or numbers skipped.
                // The log says which; it holds this one too.
                readingLog = true
            case .live(.missed):
                // What the live feed dropped is in the log; the live-only part is lost.
                readingLog = true
                return item
            case .live:
                return item
            }
        }
    }
}
