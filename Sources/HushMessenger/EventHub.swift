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

    private let state = Mutex(State())
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
        state.withLock { state in
            for id in state.subscribers.keys {
                guard var subscriber = state.subscribers[id] else { continue }
                if subscriber.missed > 0 {
                    guard case .enqueued = subscriber.continuation.yield(missed(subscriber.missed)) else {
                        subscriber.missed += 1
                        state.subscribers[id] = subscriber
                        continue
                    }
                    subscriber.missed = 0
                }
                if case .dropped = subscriber.continuation.yield(event) { subscriber.missed += 1 }
                state.subscribers[id] = subscriber
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
