/// A task of the live connection with the name a stop reports when the
/// task outlives its limit (`HushAccount.stopLiveAndWait(atMost:)`).
struct NamedTask: Sendable {
    let name: String
    let task: Task<Void, Never>

    init(_ name: String, operation: sending @escaping @isolated(any) () async -> Void) {
        self.name = name
        task = Task(operation: operation)
    }

    /// Waits until every one of `parts` has finished or `limit` has passed,
    /// whichever comes first, and returns the names of those still running
    /// then (in the order given). Awaiting a task's value cannot be given up
    /// (a task group waits for all its children), so each part is awaited by
    /// a watcher of its own that reports to a stream the limit can end; a
    /// watcher outlives a wait that gave up, and ends with its part.
    static func namesStillRunning(_ parts: [NamedTask], after limit: Duration) async -> [String] {
        guard !parts.isEmpty else { return [] }
        let (ended, report) = AsyncStream<Int>.makeStream()
        for (index, part) in parts.enumerated() {
            Task {
                await part.task.value
                report.yield(index)
            }
        }
        let timer = Task {
            try? await Task.sleep(for: limit)
            report.finish()
        }
        defer { timer.cancel() }
        var finished = Set<Int>()
        for await index in ended {
            finished.insert(index)
            if finished.count == parts.count { break }
        }
        return parts.indices.filter { !finished.contains($0) }.map { parts[$0].name }
    }
}
