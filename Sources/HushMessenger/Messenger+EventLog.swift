import HushStore

/// The durable event log, read and acknowledged (see `EventLogRepository`).
extension Messenger {
    /// Up to `limit` logged events after `seq`, oldest first; throws
    /// `StoreError.eventsPruned` when some after `seq` were pruned.
    public func loggedEvents(after seq: Int64, limit: Int) throws -> [LoggedEvent] {
        try store.events.events(after: seq, limit: limit)
    }

    /// The highest seq given so far (0 when none).
    public func latestEventSeq() throws -> Int64 { try store.events.latestSeq() }

    /// The highest seq pruned so far (0 when none): replays start after it.
    public func prunedEventSeq() throws -> Int64 { try store.events.prunedThrough() }

    /// The cursor of a named subscriber, nil when it never acknowledged.
    public func eventCursor(subscriber: String) throws -> EventCursor? { try store.events.cursor(subscriber: subscriber) }

    /// Records that `subscriber` processed every event through `seq`.
    @discardableResult
    public func acknowledgeEvents(through seq: Int64, subscriber: String) throws -> EventCursor {
        try store.events.acknowledge(through: seq, subscriber: subscriber, at: clock.now())
    }

    /// Forgets a subscriber: pruning no longer waits for it.
    @discardableResult
    public func removeEventSubscriber(_ subscriber: String) throws -> Bool { try store.events.removeSubscriber(subscriber) }

    /// Prunes what `retention` lets go, in batches until none is left; returns how many rows went.
    @discardableResult
    public func pruneEvents(retention: EventRetention) throws -> Int {
        var total = 0
        while true {
            let deleted = try store.events.prune(now: clock.now(), retention: retention)
            total += deleted
            if deleted == 0 { return total }
        }
    }
}
