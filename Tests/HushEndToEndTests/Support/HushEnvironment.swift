import Foundation

/// The environment every `hush` process of the tests gets: nothing from the
/// developer's shell (no real ~/.hush, no real passphrase), the cheap
/// Argon2id level, and no colour codes in the output.
enum HushEnvironment {
    static let passphrase = "end-to-end test passphrase"

    static var base: [String: String] {
        var environment = ["PATH": "/usr/bin:/bin", "NO_COLOR": "1", "HUSH_KDF_COST": "interactive", "LANG": "C.UTF-8"]
        // A HOME that does not exist, so nothing can fall back to the developer's ~/.hush.
        environment["HOME"] = FileManager.default.temporaryDirectory.appendingPathComponent("hush-e2e-no-home").path
        if let tmp = ProcessInfo.processInfo.environment["TMPDIR"] { environment["TMPDIR"] = tmp }
        return environment
    }
}
