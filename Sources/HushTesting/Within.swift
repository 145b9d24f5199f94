/// What `next` produces, or nil once `seconds` have passed first: a bound on
/// how long a test waits for an event, not a timing assertion.
public func within<Value: Sendable>(_ seconds: Double, _ next: @escaping @Sendable () async -> Value?) async -> Value? {
    await withTaskGroup(of: Value?.self) { group in
        group.addTask { await next() }
        group.addTask {
            try? await Task.sleep(for: .seconds(seconds))
            return nil
        }
        let first = await group.next() ?? nil
        group.cancelAll()
        return first
    }
}
