import HushProtocol

/// How a change of a contact's devices reads in the conversation
/// (docs/PROTOCOL.md §20.4: a client announces it as it does a changed
/// safety number). Device names are the contact's words: untrusted text,
/// though §20.2 already keeps control and bidirectional characters out.
public enum DeviceListNotice {
    /// The `content_type` a device-list notice is stored with in history.
    public static let contentType = "device-list"

    /// "uses 2 devices: "desktop", "laptop"" for the first list of an
    /// account; then what changed: "linked a device: "laptop"; revoked a
    /// device: "old phone"". Nil when nothing a user would see changed (a
    /// rename, a new counter, a revocation re-dated).
    public static func text(for change: DeviceListChange, first: Bool) -> String? {
        // In the order they were linked (the list's own order is by id: random to a reader).
        func names(_ entries: [DeviceListEntry]) -> String {
            entries.sorted { ($0.addedAt, $0.name) < ($1.addedAt, $1.name) }.map { "\"\($0.name)\"" }.joined(separator: ", ")
        }
        if first {
            let active = change.list.activeDevices
            return "uses \(active.count) device\(active.count == 1 ? "" : "s"): \(names(active))"
        }
        guard change.fingerprintChanged else { return nil }
        var parts: [String] = []
        if !change.added.isEmpty { parts.append("linked \(change.added.count == 1 ? "a device" : "\(change.added.count) devices"): \(names(change.added))") }
        if !change.revoked.isEmpty {
            parts.append("revoked \(change.revoked.count == 1 ? "a device" : "\(change.revoked.count) devices"): \(names(change.revoked))")
        }
        return parts.isEmpty ? "changed its devices" : parts.joined(separator: "; ")
    }
}
