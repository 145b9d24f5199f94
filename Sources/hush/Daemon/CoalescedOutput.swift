import Synchronization

/// What a command run in the daemon writes, on its way to the client: what
/// was written while the last `cli.output` notification was being sent goes
/// out together, one notification per run of one stream, not one per line.
/// `hush chats` on 2,000 conversations writes 4,000 lines, and a JSON-RPC
/// notification encoded, written and read for each was most of its time
/// through the daemon (`make bench BENCH=largeaccount`: 59 ms of the
/// daemon's CPU per command, and as much in the client).
final class CoalescedOutput: Sendable {
    /// A notification's text grows to about this many bytes before the next starts.
    static let chunkBytes = 64 * 1024

    private let pending = Mutex<[(stream: CommandOutput.Stream, text: String)]>([])
    private let wakeUps: AsyncStream<Void>
    private let wake: AsyncStream<Void>.Continuation

    init() {
        // One wake-up waiting is enough: each takes everything written before it.
        (wakeUps, wake) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
    }

    /// Called by the command as it writes, from any task.
    func write(_ stream: CommandOutput.Stream, _ text: String) {
        pending.withLock { pending in
            if let last = pending.last, last.stream == stream, last.text.utf8.count < Self.chunkBytes {
                pending[pending.count - 1].text += text
            } else {
                pending.append((stream, text))
            }
        }
        wake.yield()
    }

    /// The command is done: `forward` returns once all it wrote is sent.
    func finish() { wake.finish() }

    /// Sends what is written, in order, until `finish()`.
    func forward(_ send: (CommandOutput.Stream, String) async -> Void) async {
        for await _ in wakeUps {
            for chunk in takeAll() { await send(chunk.stream, chunk.text) }
        }
        for chunk in takeAll() { await send(chunk.stream, chunk.text) }
    }

    private func takeAll() -> [(stream: CommandOutput.Stream, text: String)] {
        pending.withLock { pending in
            defer { pending = [] }
            return pending
        }
    }
}
