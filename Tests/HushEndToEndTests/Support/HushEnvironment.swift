import Foundation

/// The environment every `hush` process of the tests gets: nothing from the
/// developer's shell (no real ~/.hush, no real passphrase), Argon2id at
/// the floor only a debug build accepts (each of the few thousand `hush`
/// processes of the suites unlocks a keystore: at the interactive cost that
/// was a third of their CPU), and no colour codes in the output.
enum HushEnvironment {
    static let passphrase = "end-to-end test passphrase"

    static var base: [String: String] {
        var environment = ["PATH": "/usr/bin:/bin", "NO_COLOR": "1", "HUSH_KDF_COST": "insecure-test-floor", "LANG": "C.UTF-8"]
        // A HOME that does not exist, so nothing can fall back to the developer's ~/.hush.
        environment["HOME"] = FileManager.default.temporaryDirectory.appendingPathComponent("hush-e2e-no-home").path
        if let tmp = ProcessInfo.processInfo.environment["TMPDIR"] { environment["TMPDIR"] = tmp }
        return environment
    }
}
