import Dispatch
import Synchronization

/// A first-in, first-out queue from one producing thread to one consuming
/// thread that holds at most `capacity` elements: `put` waits while it is
/// full, `take` while it is empty. The bound is what keeps memory flat when
/// the producer is faster than the consumer.
///
/// Whoever uses one must leave it empty: libdispatch traps when a semaphore
/// is freed below its starting value, which a queue freed with elements
/// still in it would do.
final class BoundedHandover<Element: Sendable>: Sendable {
    private let elements = Mutex<[Element]>([])
    private let filled = DispatchSemaphore(value: 0)
    private let room: DispatchSemaphore

    init(capacity: Int) {
        precondition(capacity > 0)
        room = DispatchSemaphore(value: capacity)
    }

    /// Appends `element`, waiting while `capacity` elements are queued.
    func put(_ element: Element) {
        room.wait()
        elements.withLock { $0.append(element) }
        filled.signal()
    }

    /// Removes the oldest element, waiting until there is one.
    func take() -> Element {
        filled.wait()
        // A handful of elements at most: moving them down costs nothing worth a ring buffer.
        let element = elements.withLock { $0.removeFirst() }
        room.signal()
        return element
    }
}
