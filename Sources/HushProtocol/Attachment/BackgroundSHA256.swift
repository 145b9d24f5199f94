import Dispatch
import HushCrypto
import Synchronization

/// An attachment blob's SHA-256 computed on a thread of its own while the
/// sealer or opener goes on with the encryption: `update` copies the bytes
/// into one of a few reused buffers, hands them to a serial queue and
/// returns; `finalize` waits for the rest. On the caller's thread the digest
/// costs about as much as the encryption; with a second core the two run side
/// by side. The digest is `SHA256.Hasher`'s over the same bytes in the same
/// order. Memory is bounded: at most `depth` buffers of `bufferBytes`, and
/// `update` waits while they are all in use.
final class BackgroundSHA256: @unchecked Sendable {
    static let bufferBytes = 128 << 10
    static let depth = 8

    /// One reused buffer, handed to the queue and back.
    private struct Slot: @unchecked Sendable {
        let bytes: UnsafeMutableRawBufferPointer
    }

    private let queue = DispatchQueue(label: "hush.attachment-sha256")
    private let slots = DispatchSemaphore(value: BackgroundSHA256.depth)
    /// Buffers not holding bytes waiting to be hashed, and every buffer made.
    private let pool = Mutex<(spare: [Slot], all: [Slot])>(([], []))
    // Touched only on `queue`.
    private var hasher = SHA256.Hasher()

    init() {}

    // Every block queued holds the hasher: when it goes, none is left, and
    // the last may be releasing it on the queue itself (so no sync here).
    deinit {
        pool.withLock { $0.all.forEach { $0.bytes.deallocate() } }
    }

    /// Queues `bytes` to be hashed after everything given before.
    func update(_ bytes: UnsafeRawBufferPointer) {
        var offset = 0
        while offset < bytes.count {
            let count = min(Self.bufferBytes, bytes.count - offset)
            slots.wait()
            let slot = takeSlot()
            slot.bytes.baseAddress!.copyMemory(from: bytes.baseAddress! + offset, byteCount: count)
            queue.async { [self] in
                hasher.update(UnsafeRawBufferPointer(rebasing: slot.bytes[..<count]))
                pool.withLock { $0.spare.append(slot) }
                slots.signal()
            }
            offset += count
        }
    }

    /// The digest of every byte given, once they are all hashed. Once only.
    func finalize() -> [UInt8] {
        queue.sync { hasher.finalize() }
    }

    private func takeSlot() -> Slot {
        pool.withLock { pool in
            if let slot = pool.spare.popLast() { return slot }
            let slot = Slot(bytes: .allocate(byteCount: Self.bufferBytes, alignment: 16))
            pool.all.append(slot)
            return slot
        }
    }
}
