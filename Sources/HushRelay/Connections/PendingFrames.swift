import NIOCore

/// Frames for one socket that the channel could not take yet (it stopped
/// being writable: a slow reader), oldest first. Beyond `capacity` the
/// oldest are dropped: a reader that far behind syncs over HTTP, and stored
/// envelopes are never lost.
struct PendingFrames {
    let capacity: Int
    private(set) var frames = CircularBuffer<String>()
    /// Frames dropped so far, for logs and tests.
    private(set) var dropped = 0

    init(capacity: Int) { self.capacity = capacity }

    var isEmpty: Bool { frames.isEmpty }
    var count: Int { frames.count }

    mutating func append(_ frame: String) {
        if frames.count >= capacity {
            frames.removeFirst()
            dropped += 1
        }
        frames.append(frame)
    }

    mutating func popFirst() -> String? { frames.popFirst() }

    mutating func removeAll() { frames.removeAll() }
}
