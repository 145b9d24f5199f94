import Synchronization

/// Hands every event to every subscriber, each on a stream of its own.
///
/// Events are published after the commit they describe (see
/// `MessengerDependencies.emit`). A subscriber that does not keep up is never
/// skipped silently: once its buffer is full, what it misses is counted, and
/// the first event it can take again is preceded by `.missed(count:)`, which
/// tells it to read what it shows again from the store.
public final class MessengerEventHub: Sendable {
    /// Events one subscriber may have waiting before it starts missing some.
    public static let defaultBufferLimit = 1_024

    private struct Subscriber {
        let continuation: AsyncStream<MessengerEvent>.Continuation
        /// Events dropped since the last one it received.
        var missed = 0
    }

    private struct State {
        var subscribers: [UInt64: Subscriber] = [:]
        var nextID: UInt64 = 0
    }

    private let state = Mutex(State())
    private let bufferLimit: Int

    public init(bufferLimit: Int = MessengerEventHub.defaultBufferLimit) {
        self.bufferLimit = max(2, bufferLimit)
    }

    /// A new stream of every event published from now on; it ends when the
    /// caller stops iterating (the subscription is then removed).
    public func subscribe() -> AsyncStream<MessengerEvent> {
        let (stream, continuation) = AsyncStream<MessengerEvent>.makeStream(bufferingPolicy: .bufferingOldest(bufferLimit))
        let id = state.withLock { state -> UInt64 in
            let id = state.nextID
            state.nextID += 1
            state.subscribers[id] = Subscriber(continuation: continuation)
            return id
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.subscribers.removeValue(forKey: id) }
        }
        return stream
    }

    /// How many streams are subscribed.
    public var subscriberCount: Int { state.withLock { $0.subscribers.count } }

    func publish(_ event: MessengerEvent) {
        state.withLock { state in
            for id in state.subscribers.keys {
                guard var subscriber = state.subscribers[id] else { continue }
                if subscriber.missed > 0 {
                    guard case .enqueued = subscriber.continuation.yield(.missed(count: subscriber.missed)) else {
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

    /// Ends every stream (the messenger is going away).
    func finish() {
        let subscribers = state.withLock { state in
            defer { state.subscribers.removeAll() }
            return Array(state.subscribers.values)
        }
        for subscriber in subscribers { subscriber.continuation.finish() }
    }
}
