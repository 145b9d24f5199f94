import Synchronization

/// Where attachment progress goes: to the public call (`sendFile`,
/// `fetchAttachment`) moving that attachment, by its id. Each call listens
/// for its own attachment only while it runs, so two transfers at once (two
/// fetches through the daemon, or a fetch while a flush uploads another
/// file) never see each other's progress, and a call that has answered
/// hears nothing more, even from a transfer still winding down on another
/// thread. Progress is reported from the HTTP client's threads as well as
/// the messenger's: the listeners sit behind a lock.
final class AttachmentProgressReporter: Sendable {
    typealias Listener = @Sendable (AttachmentProgress) -> Void

    /// One call's listening, to end with `stop`.
    struct Listening: Sendable {
        fileprivate let attachmentId: Int64
        fileprivate let token: UInt64
    }

    private struct State {
        var nextToken: UInt64 = 0
        /// By attachment id, then by token (the same attachment may be
        /// fetched by two calls at once; each hears it, and stops alone).
        var listeners: [Int64: [UInt64: Listener]] = [:]
    }

    private let state = Mutex(State())

    /// Sends the progress of attachment `attachmentId` to `listener` until `stop`.
    func listen(to attachmentId: Int64, _ listener: @escaping Listener) -> Listening {
        state.withLock { state in
            state.nextToken += 1
            state.listeners[attachmentId, default: [:]][state.nextToken] = listener
            return Listening(attachmentId: attachmentId, token: state.nextToken)
        }
    }

    /// Ends a listening: nothing reaches its listener once this returns.
    func stop(_ listening: Listening?) {
        guard let listening else { return }
        state.withLock { state in
            state.listeners[listening.attachmentId]?[listening.token] = nil
            if state.listeners[listening.attachmentId]?.isEmpty == true { state.listeners[listening.attachmentId] = nil }
        }
    }

    /// Hands `progress` to those listening to its attachment (none: dropped).
    func report(_ progress: AttachmentProgress) {
        // Called under the lock: a `stop` that returned has removed the
        // listener, and one that has not yet waits for this call to finish.
        state.withLock { state in
            guard let listeners = state.listeners[progress.attachmentId] else { return }
            for listener in listeners.values { listener(progress) }
        }
    }
}
