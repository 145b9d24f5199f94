import Synchronization

/// A wait that ignores task cancellation until someone opens the gate: the
/// stand-in for work that does not follow cancellation (a database query
/// waiting for its server's answer, a part of a live connection that hangs),
/// for tests of the code that must bound it anyway.
public final class Gate: Sendable {
    private let state = Mutex<(open: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    public init() {}

    public var isOpen: Bool { state.withLock { $0.open } }

    /// Returns once the gate is open (at once when it is already).
    public func wait() async {
        await withCheckedContinuation { continuation in
            let resumeNow = state.withLock { state -> Bool in
                if state.open { return true }
                state.waiters.append(continuation)
                return false
            }
            if resumeNow { continuation.resume() }
        }
    }

    /// Opens the gate: every waiter returns, and so does every later wait.
    public func open() {
        let waiters = state.withLock { state in
            defer { state.waiters.removeAll() }
            state.open = true
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }
}
