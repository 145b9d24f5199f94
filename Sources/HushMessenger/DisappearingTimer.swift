import HushProtocol

/// How a disappearing-message timer (docs/PROTOCOL.md §10.7) reads in a
/// history: the body a timer change is stored with, on both sides.
public enum DisappearingTimer {
    /// The `content_type` a timer change is stored with in history.
    public static let contentType = "disappearing-timer"

    /// The timers a user chooses from (`hush disappear NAME 1h|1d|1w|off`), in seconds.
    public static let choices: [(name: String, seconds: UInt32)] = [("1h", 3_600), ("1d", 86_400), ("1w", 604_800), ("off", 0)]

    /// "set disappearing messages to 1 day", or "turned off disappearing messages".
    public static func change(to seconds: UInt32) -> String {
        seconds == 0 ? "turned off disappearing messages" : "set disappearing messages to \(duration(seconds))"
    }

    /// `seconds` in the largest whole unit that fits ("1 day", "2 hours", "90 seconds").
    public static func duration(_ seconds: UInt32) -> String {
        let units: [(UInt32, String)] = [(604_800, "week"), (86_400, "day"), (3_600, "hour"), (60, "minute"), (1, "second")]
        for (size, name) in units where seconds % size == 0 && seconds >= size {
            let count = seconds / size
            return "\(count) \(name)\(count == 1 ? "" : "s")"
        }
        return "\(seconds) seconds"
    }
}
