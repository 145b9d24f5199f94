/// The lines of a chat screen, oldest first. A line may carry a key (an
/// outgoing message's client id) so that it can be replaced where it stands
/// when its status changes, instead of a new line being printed below.
public struct ChatTranscript: Sendable, Equatable {
    public struct Entry: Sendable, Equatable {
        public var key: String?
        public var text: String
    }

    public private(set) var entries: [Entry] = []
    /// The oldest lines are dropped beyond this (the store keeps everything).
    public let capacity: Int

    public init(capacity: Int = 2_000) {
        self.capacity = max(capacity, 1)
    }

    public mutating func append(_ text: String, key: String? = nil) {
        entries.append(Entry(key: key, text: text))
        if entries.count > capacity { entries.removeFirst(entries.count - capacity) }
    }

    /// Replaces the text of every line with `key` (a message can be shown
    /// twice, after `/history`); false when none has it.
    @discardableResult
    public mutating func replace(key: String, with text: String) -> Bool {
        var found = false
        for index in entries.indices where entries[index].key == key {
            entries[index].text = text
            found = true
        }
        return found
    }

    public func contains(key: String) -> Bool { entries.contains { $0.key == key } }
}
