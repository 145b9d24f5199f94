import Foundation

/// What a command run in the daemon writes, on its way to the client: what
/// was written while the last `cli.output` notification was being sent goes
/// out together, one notification per run of one stream, not one per line.
/// `hush chats` on 2,000 conversations writes 4,000 lines, and a JSON-RPC
/// notification encoded, written and read for each was most of its time
/// through the daemon (`make bench BENCH=largeaccount`: 59 ms of the
/// daemon's CPU per command, and as much in the client).
///
/// Bounded: once `limit` bytes are written and not yet sent, the command's
/// next write waits until the client has read enough of them (its thread
/// blocks: `DaemonCommandRunner` runs the command on a `CommandThread` of its
/// own, never on a thread the forwarding needs). A client that reads slowly
/// slows its command down instead of filling the daemon's memory; one that
/// is gone (a send fails, or the command is cancelled) has the rest of the
/// output dropped, so the command runs to its end and the daemon goes on.
final class CoalescedOutput: @unchecked Sendable {
    /// A notification's text grows to about this many bytes before the next starts.
    static let chunkBytes = 64 * 1024
    /// At most this much output (and one write more) waits for a client.
    static let defaultLimit = 1 << 20

    let limit: Int
    /// Guards the four below (@unchecked Sendable: nothing else touches them).
    private let condition = NSCondition()
    private var pending: [(stream: CommandOutput.Stream, text: String)] = []
    /// Bytes written and not yet sent: pending, or taken by `forward` and not yet sent.
    private var unsent = 0
    private var highestUnsent = 0
    /// The client is gone: writes are dropped and none waits.
    private var discarding = false

    private let wakeUps: AsyncStream<Void>
    private let wake: AsyncStream<Void>.Continuation

    init(limit: Int = defaultLimit) {
        self.limit = limit
        // One wake-up waiting is enough: each takes everything written before it.
        (wakeUps, wake) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
    }

    /// Called by the command as it writes, from any thread; waits while
    /// `limit` bytes are unsent and the client is still there.
    func write(_ stream: CommandOutput.Stream, _ text: String) {
        condition.lock()
        while unsent >= limit && !discarding { condition.wait() }
        if !discarding {
            if let last = pending.last, last.stream == stream, last.text.utf8.count < Self.chunkBytes {
                pending[pending.count - 1].text += text
            } else {
                pending.append((stream, text))
            }
            unsent += text.utf8.count
            highestUnsent = max(highestUnsent, unsent)
        }
        condition.unlock()
        wake.yield()
    }

    /// The client is gone: what waits and what is written from now on is
    /// dropped, and a write waiting for room returns.
    func discard() {
        condition.lock()
        discarding = true
        pending = []
        unsent = 0
        condition.broadcast()
        condition.unlock()
    }

    /// The command is done: `forward` returns once all it wrote is sent (or dropped).
    func finish() { wake.finish() }

    /// The most bytes that were ever written and not yet sent at once.
    var highestUnsentBytes: Int {
        condition.lock()
        defer { condition.unlock() }
        return highestUnsent
    }

    /// Sends what is written, in order, until `finish()`. A send that
    /// throws means the client is gone: the rest is discarded.
    func forward(_ send: (CommandOutput.Stream, String) async throws -> Void) async {
        for await _ in wakeUps { await sendPending(send) }
        await sendPending(send)
    }

    private func sendPending(_ send: (CommandOutput.Stream, String) async throws -> Void) async {
        for chunk in takeAll() {
            do {
                try await send(chunk.stream, chunk.text)
            } catch {
                discard()
                return
            }
            sent(chunk.text.utf8.count)
        }
    }

    private func takeAll() -> [(stream: CommandOutput.Stream, text: String)] {
        condition.lock()
        defer {
            pending = []
            condition.unlock()
        }
        return pending
    }

    private func sent(_ bytes: Int) {
        condition.lock()
        if !discarding { unsent -= bytes }
        condition.broadcast()
        condition.unlock()
    }
}
