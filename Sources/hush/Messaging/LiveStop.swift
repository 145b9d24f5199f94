import Foundation
import HushKit

/// How a command that kept the live connection (`hush listen`, `hush
/// daemon`) ends it: it waits for every part to stop, so a write in
/// progress is finished, but not for ever. A part still running after
/// `limit` is named on standard error and the process ends at once with the
/// failure status: a command given `--timeout`, or a service being stopped,
/// must end, and a hang there had no name before.
enum LiveStop {
    /// Generous next to a stop's usual milliseconds: a sync page being stored on a loaded machine fits.
    static let limit: Duration = .seconds(10)

    /// Stops `account`'s live connection. When a part outlives `limit`, runs
    /// `cleanUp`, reports the part and ends the process with `_exit`: the
    /// exit's clean-up (the crypto library's among it) must not run beside a
    /// database write still in progress. Nothing is lost that way: a write
    /// cut off is rolled back by the database, and nothing is acknowledged to
    /// the relay before it is stored.
    static func stop(_ account: HushAccount, cleanUp: () -> Void = {}) async {
        let running = await account.stopLiveAndWait(atMost: limit)
        guard !running.isEmpty else { return }
        cleanUp()
        printError(report(running))
        fflush(nil)
        _exit(ExitStatus.failure.rawValue)
    }

    static func report(_ running: [String]) -> String {
        let parts = running.count == 1 ? running[0] : running.dropLast().joined(separator: ", ") + " and " + running.last!
        return "the live connection did not stop within \(limit.components.seconds) s of being asked to (still running: \(parts)); "
            + "ending without waiting for it. Nothing is lost: what was not stored stays at the relay for the next `hush sync`. "
            + "If it happens again, please report it with this message"
    }
}
