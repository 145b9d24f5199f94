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
///
/// A caller may also queue several items together (`submitTogether`, a
/// fan-out deposit): they always land in the same batch, so one transaction
/// commits all of them or none. `commit` throws when its transaction failed
/// as a whole (nothing of the batch is stored): then every caller of the
/// batch fails with that error; a result per item is for what fails alone.
package final class GroupCommitQueue<Item: Sendable, Output: Sendable>: Sendable {
    package typealias Commit = @Sendable ([Item]) async throws -> [Result<Output, any Error>]

    /// One caller: its items, in order, and where their results go.
    private struct Waiter {
        let items: [Item]
        let continuation: CheckedContinuation<[Result<Output, any Error>], any Error>
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
    ///     A caller's items are never split, so a caller with more than this commits alone.
    ///   - commit: stores a batch and returns one result per item, in order; throws
    ///     when the transaction failed as a whole.
    package init(maxBatch: Int, commit: @escaping Commit) {
        self.maxBatch = max(1, maxBatch)
        self.commit = commit
    }

    /// A queue whose blocking `commit` runs on a serial dispatch queue named `label`.
    package convenience init(label: String, maxBatch: Int, blocking commit: @escaping @Sendable ([Item]) throws -> [Result<Output, any Error>]) {
        let queue = DispatchQueue(label: label, qos: .userInitiated)
        self.init(maxBatch: maxBatch) { batch in
            try await withCheckedThrowingContinuation { continuation in
                queue.async { continuation.resume(with: Result { try commit(batch) }) }
            }
        }
    }

    /// Queues `item` and returns its result once its batch is committed.
    package func submit(_ item: Item) async throws -> Output {
        let results = try await submitTogether([item])
        guard let result = results.first else { throw RelayError.internalFailure("group commit lost a result") }
        return try result.get()
    }

    /// Queues `items` as one caller: they commit in the same transaction,
    /// all or none. Returns one result per item, in order, once committed;
    /// throws when the transaction failed as a whole.
    package func submitTogether(_ items: [Item]) async throws -> [Result<Output, any Error>] {
        guard !items.isEmpty else { return [] }
        return try await withCheckedThrowingContinuation { continuation in
            let startWriter = state.withLock { state -> Bool in
                state.waiting.append(Waiter(items: items, continuation: continuation))
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
                // Whole callers, up to `maxBatch` items (at least one caller, whatever its size).
                var count = 1, items = state.waiting[0].items.count
                while count < state.waiting.count, items + state.waiting[count].items.count <= maxBatch {
                    items += state.waiting[count].items.count
                    count += 1
                }
                let batch = Array(state.waiting.prefix(count))
                state.waiting.removeFirst(count)
                return batch
            }
            guard !batch.isEmpty else { return }
            let results: [Result<Output, any Error>]
            do {
                results = try await commit(batch.flatMap(\.items))
            } catch {
                for waiter in batch { waiter.continuation.resume(throwing: error) }
                continue
            }
            var offset = 0
            for waiter in batch {
                let range = offset..<(offset + waiter.items.count)
                offset = range.upperBound
                // A commit that returns too few results is a bug; fail those callers rather than leave them waiting.
                guard range.upperBound <= results.count else {
                    waiter.continuation.resume(throwing: RelayError.internalFailure("group commit lost a result"))
                    continue
                }
                waiter.continuation.resume(returning: Array(results[range]))
            }
        }
    }
}
