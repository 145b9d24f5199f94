import HushCrypto
import Synchronization

/// A random source that hands out recorded values in order, so vectors state
/// every random input explicitly. Each `fill` must ask for exactly the size
/// of the next recorded value; anything else is a programming error in the
/// vector and traps.
public final class ScriptedRandom: RandomSource {
    private let queue: Mutex<[[UInt8]]>

    public init(_ values: [[UInt8]]) { queue = Mutex(values) }

    public func fill(_ buffer: UnsafeMutableRawBufferPointer) {
        let next = queue.withLock { $0.isEmpty ? nil : $0.removeFirst() }
        guard let next, next.count == buffer.count else {
            fatalError("ScriptedRandom: the vector did not record a \(buffer.count)-byte value here")
        }
        buffer.copyBytes(from: next)
    }

    public var remaining: Int { queue.withLock { $0.count } }
}
