/// What a reaction (content 0x0E, docs/PROTOCOL.md §10.5) may carry: one
/// emoji, checked the same way by the sender (before sealing) and the
/// receiver (which refuses anything else as malformed content).
public enum ReactionEmoji {
    /// 1 to 32 bytes of UTF-8 forming exactly one extended grapheme cluster
    /// (so a flag or a family ZWJ sequence counts as one, two emoji do not),
    /// with no control character and no bidirectional formatting character
    /// (they could reorder or hide what a terminal shows around it). Whether
    /// the cluster is an emoji at all is not checked: Unicode's emoji list
    /// grows every year, and a receiver on an older list must not refuse a
    /// newer one.
    public static func isAcceptable(_ emoji: String) -> Bool {
        let length = emoji.utf8.count
        guard (1...ContentLimits.maxReactionLength).contains(length), emoji.count == 1 else { return false }
        return !emoji.unicodeScalars.contains { scalar in
            scalar.properties.generalCategory == .control || bidirectionalFormatting.contains(scalar.value)
        }
    }

    /// U+061C, U+200E–U+200F, U+202A–U+202E, U+2066–U+2069.
    static let bidirectionalFormatting: Set<UInt32> = [0x061C, 0x200E, 0x200F, 0x202A, 0x202B, 0x202C, 0x202D, 0x202E,
                                                        0x2066, 0x2067, 0x2068, 0x2069]
}
