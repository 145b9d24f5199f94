import Dispatch
import Synchronization

/// Group commit: callers queue an item and wait; one writer at a time takes
/// everything queued and hands it to `commit` as one batch (one transaction),
/// then resumes each caller with its own result.
///
/// Batches form by themselves from what arrives while a commit is in flight:
/// there is no timer, so a lone item never waits for company, and under load
/// one COMMIT serves many callers. A caller is resumed only after `commit`
/// has returned, i.e. after the transaction holding its item is committed
/// (or has failed). A blocking commit (SQLCipher) runs on a serial dispatch
/// queue of its own, so the database work never occupies a Swift concurrency
/// thread; an async one (PostgreSQL) awaits its connection.
package final class GroupCommitQueue<Item: Sendable, Output: Sendable>: Sendable {
    package typealias Commit = @Sendable ([Item]) async -> [Result<Output, any Error>]

    private struct Waiter {
        let item: Item
        let continuation: CheckedContinuation<Output, any Error>
    }
    private struct State {
        var waiting: [Waiter] = []
        var draining = false
    }

    private let state = Mutex(State())
    private let maxBatch: Int
    private let commit: Commit

    /// - Parameters:
    ///   - maxBatch: most items in one transaction (bounds how long one commit holds the database).
    ///   - commit: stores a batch and returns one result per item, in order.
    package init(maxBatch: Int, commit: @escaping Commit) {
        self.maxBatch = max(1, maxBatch)
        self.commit = commit
    }

    /// A queue whose blocking `commit` runs on a serial dispatch queue named `label`.
    package convenience init(label: String, maxBatch: Int, blocking commit: @escaping @Sendable ([Item]) -> [Result<Output, any Error>]) {
        let queue = DispatchQueue(label: label, qos: .userInitiated)
        self.init(maxBatch: maxBatch) { batch in
            await withCheckedContinuation { continuation in
                queue.async { continuation.resume(returning: commit(batch)) }
            }
        }
    }

    /// Queues `item` and returns its result once its batch is committed.
    package func submit(_ item: Item) async throws -> Output {
        try await withCheckedThrowingContinuation { continuation in
            let startWriter = state.withLock { state -> Bool in
                state.waiting.append(Waiter(item: item, continuation: continuation))
                guard !state.draining else { return false }
                state.draining = true
                return true
            }
            if startWriter { Task { await self.drain() } }
        }
    }

    /// Callers queued behind the commit in flight (tests).
    var waitingCount: Int { state.withLock { $0.waiting.count } }

    /// Commits batches until nothing is waiting, then stops (the next
    /// `submit` starts it again).
    private func drain() async {
        while true {
            let batch = state.withLock { state -> [Waiter] in
                guard !state.waiting.isEmpty else {
                    state.draining = false
                    return []
                }
                let count = min(maxBatch, state.waiting.count)
                let batch = Array(state.waiting.prefix(count))
                state.waiting.removeFirst(count)
                return batch
            }
            guard !batch.isEmpty else { return }
            let results = await commit(batch.map(\.item))
            for (index, waiter) in batch.enumerated() {
                // A commit that returns too few results is a bug; fail those callers rather than leave them waiting.
                let result = index < results.count ? results[index] : .failure(RelayError.internalFailure("group commit lost a result"))
                waiter.continuation.resume(with: result)
            }
        }
    }
}
