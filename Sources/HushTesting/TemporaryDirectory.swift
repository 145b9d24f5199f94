import Foundation

/// A fresh directory under the system temporary directory, private to the
/// user (0700, as a data directory must be), removed on deinit. Swift may
/// end a local's lifetime at its last use: a test that only takes a path
/// from it keeps it with `defer { withExtendedLifetime(directory) {} }`.
public final class TemporaryDirectory: Sendable {
    public let url: URL

    /// `label` names the directory (`hush-<label>-<uuid>`), so a leftover
    /// one says which tests made it.
    public init(label: String = "test") throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("hush-\(label)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        chmod(url.path, 0o700)
    }

    public var path: String { url.path }

    /// The path of `name` inside the directory.
    public func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    deinit { try? FileManager.default.removeItem(at: url) }
}
