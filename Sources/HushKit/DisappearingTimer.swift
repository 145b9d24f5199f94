import HushMessenger

/// The disappearing-message timers a user chooses from
/// (`Room.setDisappearingTimer(_:)`, docs/PROTOCOL.md §10.7).
public enum DisappearingTimer {
    /// "1h", "1d", "1w" and "off" with their seconds (0 = off).
    public static let choices: [(name: String, seconds: UInt32)] = HushMessenger.DisappearingTimer.choices

    /// A timer in words: "1 day", "2 hours".
    public static func duration(_ seconds: UInt32) -> String { HushMessenger.DisappearingTimer.duration(seconds) }
}
