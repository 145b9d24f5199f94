import HushTesting

/// Polls `condition` every 10 ms until it holds; throws after 20 s (a bound
/// for a live loop to act, not a timing assertion).
func waitUntil(_ what: String, _ condition: @escaping @Sendable () async throws -> Bool) async throws {
    let held = await within(20) {
        while !Task.isCancelled {
            if (try? await condition()) == true { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return nil
    }
    guard held == true else { throw WaitedTooLong(what: what) }
}

struct WaitedTooLong: Error, CustomStringConvertible {
    let what: String
    var description: String { "waited 20 s for \(what)" }
}
