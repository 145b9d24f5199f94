import HushCrypto
import Synchronization

/// A random source that hands out recorded values in order, so vectors state
/// every random input explicitly. Each `fill` must ask for exactly the size
/// of the next recorded value. A vector that recorded too few values or
/// values of the wrong size is the vector's fault, not a reason to stop the
/// process (vector files come from users: `hush vectors FILE`): the request
/// gets zero bytes and `checkUsedAsRecorded` reports the first mismatch.
public final class ScriptedRandom: RandomSource {
    private let state: Mutex<(queue: [[UInt8]], mismatch: String?)>

    public init(_ values: [[UInt8]]) { state = Mutex((values, nil)) }

    public func fill(_ buffer: UnsafeMutableRawBufferPointer) {
        let next: [UInt8]? = state.withLock { state in
            let next = state.queue.isEmpty ? nil : state.queue.removeFirst()
            if next?.count != buffer.count, state.mismatch == nil {
                state.mismatch = "the vector did not record a \(buffer.count)-byte random value here"
            }
            return next
        }
        guard let next, next.count == buffer.count else {
            buffer.initializeMemory(as: UInt8.self, repeating: 0)
            return
        }
        buffer.copyBytes(from: next)
    }

    public var remaining: Int { state.withLock { $0.queue.count } }

    /// Throws when some `fill` did not match the recorded values.
    public func checkUsedAsRecorded() throws {
        if let mismatch = state.withLock({ $0.mismatch }) { throw VectorFailure(mismatch) }
    }
}
