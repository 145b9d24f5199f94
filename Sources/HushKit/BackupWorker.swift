import Dispatch
import Foundation
import Synchronization

/// Where an open account writes its backups: one at a time (a `backup
/// create` handed to the daemon waits for the scheduled one, and the other
/// way round), on a thread of its own, so a long backup blocks none of the
/// tasks serving the account meanwhile.
final class BackupWorker: Sendable {
    private let queue = DispatchQueue(label: "hush.backup", qos: .utility)
    /// The second the last backup began: archives are named by the second,
    /// so the next one waits for a new second rather than replace it.
    private let lastStart = Mutex<Int64?>(nil)

    /// Runs `body` with the moment the backup begins, after any backup before it.
    func run<T: Sendable>(_ body: @escaping @Sendable (_ now: Date) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            queue.async {
                var now = Date()
                if let last = self.lastStart.withLock({ $0 }), Int64(now.timeIntervalSince1970.rounded(.down)) <= last {
                    Thread.sleep(forTimeInterval: min(1, Double(last + 1) - now.timeIntervalSince1970)) // never a clock's step back
                    now = Date()
                }
                self.lastStart.withLock { $0 = Int64(now.timeIntervalSince1970.rounded(.down)) }
                continuation.resume(with: Result { try body(now) })
            }
        }
    }
}
