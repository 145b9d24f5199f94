import Synchronization

/// The bytes of a blob being sealed, for the upload that follows the
/// sealing: how far the blob's file is written, and the latest bytes held in
/// memory (`windowBytes`), so that the upload reads them from here rather
/// than back from the file, which is written past the page cache
/// (`DirectWriter`). Bytes the upload fell behind on (a link slower than the
/// sealing, which never waits for it) are read from the file instead, where
/// they are by then.
///
/// The sealer calls `append` with each piece it wrote and `end` once it
/// stops (`failed` when the file will never be whole); the upload calls
/// `wait(beyond:)`, which suspends until there is something past its
/// position, and `copy(at:into:)`.
final class SealedBlobFeed: Sendable {
    /// Thrown to the reader when the writer stopped before the file was whole.
    struct WriterStopped: Error, CustomStringConvertible {
        var description: String { "the file stopped being written before it was whole" }
    }

    /// The latest bytes kept in memory: four of the upload's 1 MiB pieces.
    static let windowBytes = 4 << 20

    private struct State {
        var written: Int64 = 0
        var ended = false
        var failed = false
        var waiters: [(after: Int64, continuation: CheckedContinuation<Int64, any Error>)] = []
    }

    /// The last `windowBytes` bytes written, in a ring (byte `n` of the blob
    /// at `n % windowBytes`): touched only under `state`'s lock.
    private struct Ring: @unchecked Sendable {
        let bytes: UnsafeMutableRawBufferPointer
    }

    private let state = Mutex(State())
    private let ring: Ring
    private let windowBytes: Int

    init(windowBytes: Int = SealedBlobFeed.windowBytes) {
        self.windowBytes = windowBytes
        ring = Ring(bytes: .allocate(byteCount: windowBytes, alignment: 16))
    }

    deinit { ring.bytes.deallocate() }

    /// The next bytes of the blob, just written to its file.
    func append(_ bytes: UnsafeRawBufferPointer) {
        let (ready, written) = state.withLock { state in
            // Only the last `windowBytes` of what arrives can stay.
            var offset = max(0, bytes.count - windowBytes)
            var position = state.written + Int64(offset)
            while offset < bytes.count {
                let slot = Int(position % Int64(windowBytes))
                let count = min(bytes.count - offset, windowBytes - slot)
                (ring.bytes.baseAddress! + slot).copyMemory(from: bytes.baseAddress! + offset, byteCount: count)
                offset += count
                position += Int64(count)
            }
            state.written += Int64(bytes.count)
            let written = state.written
            let ready = state.waiters.filter { $0.after < written }
            state.waiters.removeAll { $0.after < written }
            return (ready, written)
        }
        for waiter in ready { waiter.continuation.resume(returning: written) }
    }

    /// The writer stopped: whole (`failed` false) or never to be (true).
    /// Every waiting reader resumes.
    func end(failed: Bool) {
        let (waiters, written) = state.withLock { state in
            state.ended = true
            state.failed = failed
            defer { state.waiters = [] }
            return (state.waiters, state.written)
        }
        for waiter in waiters {
            if failed || waiter.after >= written { waiter.continuation.resume(throwing: WriterStopped()) } else {
                waiter.continuation.resume(returning: written)
            }
        }
    }

    /// How far the file is written, once that is past `position`. Throws
    /// `WriterStopped` when the writer stopped short of that (or failed).
    func wait(beyond position: Int64) async throws -> Int64 {
        try await withCheckedThrowingContinuation { continuation in
            let now: Result<Int64, any Error>? = state.withLock { state in
                if state.failed { return .failure(WriterStopped()) }
                if state.written > position { return .success(state.written) }
                if state.ended { return .failure(WriterStopped()) }
                state.waiters.append((position, continuation))
                return nil
            }
            if let now { continuation.resume(with: now) }
        }
    }

    /// Copies the bytes from `position` on that are still held in memory
    /// into `buffer`; returns how many (0: they are no longer held, or not
    /// written yet: read them from the file).
    func copy(at position: Int64, into buffer: UnsafeMutableRawBufferPointer) -> Int {
        return state.withLock { state in
            guard position < state.written, position >= state.written - Int64(windowBytes) else { return 0 }
            let total = Int(min(Int64(buffer.count), state.written - position))
            var done = 0
            while done < total {
                let slot = Int((position + Int64(done)) % Int64(windowBytes))
                let count = min(total - done, windowBytes - slot)
                (buffer.baseAddress! + done).copyMemory(from: UnsafeRawPointer(ring.bytes.baseAddress! + slot), byteCount: count)
                done += count
            }
            return total
        }
    }
}
