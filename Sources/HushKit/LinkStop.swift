import Synchronization

/// A request to stop a link (docs/PROTOCOL.md §20.6) made from outside it:
/// the user pressed Ctrl-C, or the process was asked to terminate. The link
/// runs on a task of its own that is never cancelled, so that what it does on
/// the way out (telling the other device, withdrawing an entry it published)
/// can still reach the relay; it sees the request where it waits and ends as
/// a failure would.
final class LinkStop: Sendable {
    private let requested = Atomic<Bool>(false)

    var isRequested: Bool { requested.load(ordering: .acquiring) }

    func request() { requested.store(true, ordering: .releasing) }

    /// What a stopped link ends with, before its clean-up says what it did.
    static let stopped = HushError(.other, reason: "the link was stopped here (Ctrl-C or a termination signal)",
                                   suggestion: "start again with a new code when you are ready")

    /// Runs `link` on a task of its own, requesting a stop (not cancelling
    /// it) when the calling task is cancelled.
    static func running<T: Sendable>(_ link: @escaping @Sendable (LinkStop) async throws(HushError) -> T) async throws(HushError) -> T {
        let stop = LinkStop()
        let work = Task { () async -> Result<T, HushError> in
            do throws(HushError) { return .success(try await link(stop)) } catch { return .failure(error) }
        }
        return try await withTaskCancellationHandler { await work.value } onCancel: { stop.request() }.get()
    }
}
