import Synchronization

/// The messenger's own hub: its events with their seqs, `.missed(count:)`
/// (without a seq) for what a slow subscriber lost.
public typealias MessengerEventHub = EventHub<MessengerEventRecord>

extension EventHub where Event == MessengerEventRecord {
    public convenience init(bufferLimit: Int = defaultEventBufferLimit) {
        self.init(bufferLimit: bufferLimit, missed: { MessengerEventRecord(seq: nil, event: .missed(count: $0), createdAt: 0) })
    }
}

/// Events one subscriber may have waiting before it starts missing some.
public let defaultEventBufferLimit = 1_024

/// Hands every event to every subscriber, each on a stream of its own.
///
/// Events are published after the commit they describe (see
/// `MessengerDependencies.emit`). A subscriber that does not keep up is never
/// skipped silently: once its buffer is full, what it misses is counted, and
/// the first event it can take again is the one `missed` makes of that count,
/// which tells it to read what it shows again from the store.
public final class EventHub<Event: Sendable>: Sendable {
    private struct Subscriber {
        let continuation: AsyncStream<Event>.Continuation
        /// Events dropped since the last one it received.
        var missed = 0
    }

    private struct State {
        var subscribers: [UInt64: Subscriber] = [:]
        var nextID: UInt64 = 0
        /// Once finished, a new subscription ends at once.
        var finished = false
    }

    /// The subscribers. Never held while a stream is yielded to or
    /// finished: a yield resumes the subscriber's task, which takes that
    /// task's status lock, and a task being cancelled holds its status lock
    /// while its stream's `onTermination` runs, which takes this lock to
    /// remove the subscription. Yielding under this lock deadlocked the
    /// two (a `hush listen` stopping while the relay connection published).
    private let state = Mutex(State())
    /// Held by `publish` from start to end, yields included, so every
    /// subscriber receives events in the order they were published. Nothing
    /// a yield or a termination runs takes it.
    private let publishing = Mutex(())
    private let bufferLimit: Int
    private let missed: @Sendable (Int) -> Event

    /// `missed` makes the event that tells a subscriber how many it lost.
    public init(bufferLimit: Int = defaultEventBufferLimit, missed: @escaping @Sendable (Int) -> Event) {
        self.bufferLimit = max(2, bufferLimit)
        self.missed = missed
    }

    /// A new stream of every event published from now on; it ends when the
    /// caller stops iterating (the subscription is then removed), or at once
    /// when the hub has finished.
    public func subscribe() -> AsyncStream<Event> {
        let (stream, continuation) = AsyncStream<Event>.makeStream(bufferingPolicy: .bufferingOldest(bufferLimit))
        let id = state.withLock { state -> UInt64? in
            guard !state.finished else { return nil }
            let id = state.nextID
            state.nextID += 1
            state.subscribers[id] = Subscriber(continuation: continuation)
            return id
        }
        guard let id else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.subscribers.removeValue(forKey: id) }
        }
        return stream
    }

    /// How many streams are subscribed.
    public var subscriberCount: Int { state.withLock { $0.subscribers.count } }

    public func publish(_ event: Event) {
        publishing.withLock { _ in
            let subscribers = state.withLock { $0.subscribers }
            var missedNow: [UInt64: Int] = [:]
            for (id, subscriber) in subscribers {
                var dropped = subscriber.missed
                if dropped > 0 {
                    guard case .enqueued = subscriber.continuation.yield(self.missed(dropped)) else {
                        missedNow[id] = dropped + 1
                        continue
                    }
                    dropped = 0
                }
                if case .dropped = subscriber.continuation.yield(event) { dropped += 1 }
                if dropped != subscriber.missed { missedNow[id] = dropped }
            }
            guard !missedNow.isEmpty else { return }
            // Only `publish` changes the counts, and only under `publishing`:
            // what was read above is still current (a subscriber removed meanwhile stays removed).
            state.withLock { state in
                for (id, missed) in missedNow where state.subscribers[id] != nil { state.subscribers[id]?.missed = missed }
            }
        }
    }

    /// Ends every stream (its owner is going away).
    public func finish() {
        let subscribers = state.withLock { state in
            state.finished = true
            defer { state.subscribers.removeAll() }
            return Array(state.subscribers.values)
        }
        for subscriber in subscribers { subscriber.continuation.finish() }
    }
}
