import HushDatabase

/// The durable event log (`events`) and its subscribers' cursors
/// (`event_subscribers`): see `Schema.addEventLog`.
///
/// `append` joins the caller's transaction, so an event is stored with the
/// change it tells of, or not at all; outside a transaction it is its own.
public struct EventLogRepository {
    let database: Database

    /// The setting that keeps the highest seq pruned so far: a replay after
    /// a smaller seq would have a gap, and is refused.
    static let prunedThroughSetting = "events.pruned_through"

    /// The setting that keeps the highest seq reserved for commits that do
    /// not wait for the disk (`reserveSeqs`).
    static let reservedThroughSetting = "events.reserved_through"

    /// Stores `entry`; returns its seq.
    @discardableResult
    public func append(_ entry: EventEntry, at time: Milliseconds) throws -> Int64 {
        try database.execute("""
            INSERT INTO events(kind, message_id, conversation_id, contact_id, attachment_id, detail, created_at)
            VALUES (?, ?, ?, ?, ?, ?, ?)
            """, [entry.kind.rawValue, entry.messageId, entry.conversationId, entry.contactId, entry.attachmentId,
                      entry.detail, time])
        return database.lastInsertRowID
    }

    /// Up to `limit` events with a seq above `seq`, oldest first.
    ///
    /// - Throws: `StoreError.eventsPruned` when events after `seq` were
    ///   pruned already (never a silent gap): the caller must read the state
    ///   again and resume after `prunedThrough()`.
    public func events(after seq: Int64, limit: Int) throws -> [LoggedEvent] {
        let pruned = try prunedThrough()
        guard seq >= pruned else { throw StoreError.eventsPruned(requestedAfter: seq, prunedThrough: pruned) }
        return try database.query("""
            SELECT seq, kind, message_id, conversation_id, contact_id, attachment_id, detail, created_at
            FROM events WHERE seq > ? ORDER BY seq LIMIT ?
            """, [seq, Int64(max(0, limit))]) { row in
            let kindName = try row.get(1, as: String.self)
            guard let kind = EventEntry.Kind(rawValue: kindName) else {
                throw StoreError.invalidArgument("the event log holds an event of an unknown kind (\(kindName)): from a newer version?")
            }
            let entry = EventEntry(kind, messageId: try row.get(2), conversationId: try row.get(3), contactId: try row.get(4),
                                   attachmentId: try row.get(5), detail: try row.get(6))
            return LoggedEvent(seq: try row.get(0), entry: entry, createdAt: try row.get(7))
        }
    }

    /// The highest seq ever given (0 when none), pruned or not.
    public func latestSeq() throws -> Int64 {
        try database.queryFirst("SELECT seq FROM sqlite_sequence WHERE name = 'events'") { try $0.get(0, as: Int64.self) } ?? 0
    }

    // MARK: Seqs given by commits that do not wait for the disk

    /// A seq is never given twice, but a power loss can take back a commit
    /// that did not wait for the disk (`Database.Durability.deferred`) after
    /// its events were published, and SQLite would then give their seqs
    /// again. So such commits take their seqs from a range reserved by a
    /// synced commit beforehand, and every open of the store starts past the
    /// range (`skipPastReservation`). Call outside a transaction: makes sure
    /// `count` more seqs fit in the range, reserving `block` more when not.
    public func reserveSeqs(_ count: Int64, block: Int64 = 1_024) throws {
        let latest = try latestSeq()
        guard latest + count > (try reservedThrough()) else { return }
        try database.transaction { _ in try setReservedThrough(latest + max(block, count)) }
    }

    /// Whether every seq given so far is within the reserved range: a commit
    /// that does not wait for the disk checks it before it commits.
    public func isWithinReservation() throws -> Bool {
        try latestSeq() <= (try reservedThrough())
    }

    /// Moves the next seq past the reserved range, which is then used up:
    /// what a commit taken back by a power loss published is never
    /// published again under the same seq.
    func skipPastReservation() throws {
        let reserved = try reservedThrough()
        guard reserved > (try latestSeq()) else { return }
        try database.transaction { db in
            try db.execute("DELETE FROM sqlite_sequence WHERE name = 'events'")
            try db.execute("INSERT INTO sqlite_sequence(name, seq) VALUES ('events', ?)", [reserved])
        }
    }

    func reservedThrough() throws -> Int64 {
        try database.queryFirst("SELECT value FROM settings WHERE name = ?", [Self.reservedThroughSetting]) {
            try $0.get(0, as: String.self)
        }.flatMap { Int64($0) } ?? 0
    }

    private func setReservedThrough(_ seq: Int64) throws {
        try database.execute("INSERT OR REPLACE INTO settings(name, value) VALUES (?, ?)",
                             [Self.reservedThroughSetting, String(seq)])
    }

    /// The highest seq pruned so far (0 when none): a replay may start after it, not before.
    public func prunedThrough() throws -> Int64 {
        try database.queryFirst("SELECT value FROM settings WHERE name = ?", [Self.prunedThroughSetting]) {
            try $0.get(0, as: String.self)
        }.flatMap { Int64($0) } ?? 0
    }

    // MARK: Subscribers

    /// The cursor of `subscriber`, or nil when it never acknowledged anything.
    public func cursor(subscriber: String) throws -> EventCursor? {
        try database.queryFirst("SELECT acknowledged_seq, updated_at FROM event_subscribers WHERE name = ?", [subscriber]) {
            EventCursor(subscriber: subscriber, acknowledgedSeq: try $0.get(0), updatedAt: try $0.get(1))
        }
    }

    /// Every registered subscriber's cursor, by name.
    public func cursors() throws -> [EventCursor] {
        try database.query("SELECT name, acknowledged_seq, updated_at FROM event_subscribers ORDER BY name") {
            EventCursor(subscriber: try $0.get(0), acknowledgedSeq: try $0.get(1), updatedAt: try $0.get(2))
        }
    }

    /// Records that `subscriber` processed every event through `seq`
    /// (registering it when new: from then on, pruning waits for it). A
    /// cursor never moves back: a smaller seq leaves it where it is.
    /// Returns the cursor as it is now.
    ///
    /// - Throws: `StoreError.invalidArgument` for a negative seq or one
    ///   above `latestSeq()` (nothing is changed).
    @discardableResult
    public func acknowledge(through seq: Int64, subscriber: String, at time: Milliseconds) throws -> EventCursor {
        try database.withinTransaction { _ in
            let latest = try latestSeq()
            guard seq >= 0, seq <= latest else {
                throw StoreError.invalidArgument("event \(seq) cannot be acknowledged: the latest event is \(latest)")
            }
            // SQLCipher 3.4.1's SQLite has no upsert.
            try database.execute("INSERT OR IGNORE INTO event_subscribers(name, acknowledged_seq, updated_at) VALUES (?, ?, ?)",
                                 [subscriber, seq, time])
            try database.execute("UPDATE event_subscribers SET acknowledged_seq = max(acknowledged_seq, ?), updated_at = ? WHERE name = ?",
                                 [seq, time, subscriber])
            guard let cursor = try cursor(subscriber: subscriber) else { throw StoreError.notFound("event subscriber") }
            return cursor
        }
    }

    /// Forgets `subscriber`: pruning no longer waits for it. False when there was none.
    @discardableResult
    public func removeSubscriber(_ subscriber: String) throws -> Bool {
        try database.execute("DELETE FROM event_subscribers WHERE name = ?", [subscriber])
        return database.changes > 0
    }

    // MARK: Pruning

    /// Deletes up to `batch` of the oldest events that `retention` lets go,
    /// always a prefix of the log (so "pruned through N" stays exact), and
    /// records how far it pruned. Returns how many rows it deleted.
    ///
    /// A row may go when every subscriber acknowledged it and it is older
    /// than `acknowledgedAge`, or when it is older than `maximumAge`, or
    /// when the log holds more than `maximumCount` rows.
    @discardableResult
    public func prune(now: Milliseconds, retention: EventRetention = .standard, batch: Int = 10_000) throws -> Int {
        try database.withinTransaction { _ in
            let latest = try latestSeq()
            let acknowledged = try database.queryFirst("SELECT min(acknowledged_seq) FROM event_subscribers") {
                try $0.get(0, as: Int64?.self)
            } ?? nil
            let soft = min(acknowledged ?? latest, try lastSeq(createdBefore: now - retention.acknowledgedAge, latest: latest))
            let old = try lastSeq(createdBefore: now - retention.maximumAge, latest: latest)
            let overCount = try lastSeqOverCount(retention.maximumCount, latest: latest)
            let boundary = max(soft, old, overCount)
            guard boundary > 0, batch > 0 else { return 0 }
            // The batch's last row, when the batch does not reach the boundary.
            let batchEnd = try database.queryFirst("SELECT seq FROM events WHERE seq <= ? ORDER BY seq LIMIT 1 OFFSET ?",
                                                   [boundary, Int64(batch - 1)]) { try $0.get(0, as: Int64.self) }
            let through = batchEnd ?? boundary
            try database.execute("DELETE FROM events WHERE seq <= ?", [through])
            let deleted = database.changes
            if through > (try prunedThrough()) {
                try database.execute("INSERT OR REPLACE INTO settings(name, value) VALUES (?, ?)",
                                     [Self.prunedThroughSetting, String(through)])
            }
            return deleted
        }
    }

    /// The seq of the newest row beyond the newest `count` (0 when the log
    /// holds no more than `count`). Counted only when the seqs' span says
    /// it may be over: seqs are unique, so the log holds at most that span.
    private func lastSeqOverCount(_ count: Int, latest: Int64) throws -> Int64 {
        guard let first = try database.queryFirst("SELECT seq FROM events ORDER BY seq LIMIT 1", [], { try $0.get(0, as: Int64.self) }),
              latest - first + 1 > Int64(max(0, count)) else { return 0 }
        return try database.queryFirst("SELECT seq FROM events ORDER BY seq DESC LIMIT 1 OFFSET ?",
                                       [Int64(max(0, count))]) { try $0.get(0, as: Int64.self) } ?? 0
    }

    /// The seq just before the first event created at or after `time` (the
    /// log is in commit order, so the scan stops at the first young row):
    /// `latest` when every event is older.
    private func lastSeq(createdBefore time: Milliseconds, latest: Int64) throws -> Int64 {
        guard let first = try database.queryFirst("SELECT seq FROM events WHERE created_at >= ? ORDER BY seq LIMIT 1", [time],
                                                  { try $0.get(0, as: Int64.self) }) else { return latest }
        return first - 1
    }
}
