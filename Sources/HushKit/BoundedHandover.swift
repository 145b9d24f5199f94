import Foundation

/// A first-in, first-out queue from one producing thread to one consuming
/// thread that holds at most `capacity` elements: `put` waits while it is
/// full, `take` while it is empty. The bound is what keeps memory flat when
/// the producer is faster than the consumer.
///
/// An `NSCondition` (a pthread mutex and condition variable) rather than
/// `Mutex` and semaphores: ThreadSanitizer follows pthreads, but not the
/// futex hand-over of a contended `Mutex`, and reported every hand-over of a
/// restore as a race.
///
/// `@unchecked Sendable`: `elements` is touched only with `condition` locked.
final class BoundedHandover<Element: Sendable>: @unchecked Sendable {
    private let condition = NSCondition()
    private var elements: [Element] = []
    private let capacity: Int

    init(capacity: Int) {
        precondition(capacity > 0)
        self.capacity = capacity
    }

    /// Appends `element`, waiting while `capacity` elements are queued.
    func put(_ element: Element) {
        condition.lock()
        defer { condition.unlock() }
        while elements.count >= capacity { condition.wait() }
        elements.append(element)
        condition.broadcast()
    }

    /// Removes the oldest element, waiting until there is one.
    func take() -> Element {
        condition.lock()
        defer { condition.unlock() }
        while elements.isEmpty { condition.wait() }
        // A handful of elements at most: moving them down costs nothing worth a ring buffer.
        let element = elements.removeFirst()
        condition.broadcast()
        return element
    }
}
