import Dispatch
import Foundation
import Synchronization

/// Syncs finished files to disk on a thread of its own, one after another,
/// while the caller goes on writing the next ones; `finish()` waits for all
/// of them and throws the first failure.
///
/// A restore must have every file on disk before the home is renamed into
/// place. Synced in line, each file's sync waited for the disk to write the
/// whole file (the kernel had not begun: a GiB of dirty pages is under its
/// threshold), while the restore sat idle: about a third of a restore's
/// time in the files. Here the disk writes one file while the next is
/// decrypted.
final class BackgroundFileSync: Sendable {
    /// Files waiting for their sync at most: each holds a descriptor until
    /// then, and small files are written far faster than they are synced, so
    /// without a bound a home of many small files runs out of descriptors.
    static let maximumWaiting = 32

    private let queue = DispatchQueue(label: "hush.restore.sync", qos: .userInitiated)
    private let failure = Mutex<HushError?>(nil)
    private let slots = DispatchSemaphore(value: BackgroundFileSync.maximumWaiting)

    /// Takes `file` over: it is synced, then closed, on the sync thread.
    /// Waits while `maximumWaiting` files are still waiting.
    func syncAndClose(_ file: FileHandle, path: String) {
        slots.wait()
        queue.async { [self] in
            defer { slots.signal() }
            do { try file.synchronize() } catch {
                failure.withLock { $0 = $0 ?? HushError(.storage, reason: "could not write \(path) to disk: \(error.localizedDescription)") }
            }
            do { try file.close() } catch {
                failure.withLock { $0 = $0 ?? HushError(.storage, reason: "could not close \(path): \(error.localizedDescription)") }
            }
        }
    }

    /// Returns once every file handed over is synced and closed.
    ///
    /// - Throws: the first failure, a `HushError` of kind `storage`.
    func finish() throws(HushError) {
        queue.sync {}
        if let error = failure.withLock({ $0 }) { throw error }
    }
}
