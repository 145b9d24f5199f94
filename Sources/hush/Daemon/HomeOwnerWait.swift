import HushKit

/// How long a command waits for an account another process holds alone
/// (a daemon starting, `hush init --force`) before it says who holds it.
enum HomeOwnerWait {
    static let patience: Duration = .seconds(3)
    static let interval: Duration = .milliseconds(50)

    /// Waits while another process holds `directory` alone, then says who
    /// (before a passphrase is asked for that could not help).
    static func untilShared(_ directory: String) async throws {
        let deadline = ContinuousClock.now + patience
        while let owner = HushAccount.holders(of: directory).first(where: { $0.ownership == .exclusive }) {
            guard ContinuousClock.now < deadline else {
                if owner.command?.contains("daemon") == true {
                    throw HushError(.homeInUse, reason: "a daemon owns the account in \(directory) (\(owner)), and this command runs in its own process, not through the daemon")
                }
                throw HushError(.homeInUse, reason: "the account in \(directory) is owned by \(owner)")
            }
            try await Task.sleep(for: interval)
        }
    }

    /// Runs `open` again while it fails with `homeInUse`, up to `patience`.
    static func retrying<T>(_ open: () async throws -> T) async throws -> T {
        let deadline = ContinuousClock.now + patience
        while true {
            do {
                return try await open()
            } catch let error as HushError where error.kind == .homeInUse && ContinuousClock.now < deadline {
                try await Task.sleep(for: interval)
            }
        }
    }
}
