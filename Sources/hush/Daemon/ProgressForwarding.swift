/// Runs an operation that reports progress as a daemon method: each step is
/// sent on by one task, in order, and all of them before the method answers,
/// an error as much as a result (a client that has its answer hears nothing
/// more of that call). A step the operation reports after it ended is dropped.
enum ProgressForwarding {
    static func run<Step: Sendable, Value>(forward: @escaping @Sendable (Step) async -> Void,
                                           _ operation: (_ report: @escaping @Sendable (Step) -> Void) async throws -> Value)
        async throws -> Value {
        let (steps, sink) = AsyncStream<Step>.makeStream()
        let forwarder = Task {
            for await step in steps { await forward(step) }
        }
        let outcome: Result<Value, any Error>
        do { outcome = .success(try await operation { sink.yield($0) }) } catch { outcome = .failure(error) }
        sink.finish()
        await forwarder.value
        return try outcome.get()
    }
}
