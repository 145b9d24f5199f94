import HushCrypto
import Synchronization

/// A deterministic stream for tests, benchmarks and vector generation: the
/// bytes of `SeededKeystream` (ChaCha20) keyed by BLAKE2b(seed) and a block
/// counter, so successive calls continue the stream rather than repeating it.
/// Never use it for real keys: it lives here, outside every product, so
/// production code cannot reach it.
public final class DeterministicRandom: RandomSource {
    private let seed: [UInt8]
    private let counter = Mutex<UInt64>(0)

    /// `seed` may be any length; it is hashed to the 32-byte ChaCha20 key.
    public init(seed: [UInt8]) {
        self.seed = BLAKE2b.hash(seed, outputLength: 32)
    }

    public convenience init(seed: String) {
        self.init(seed: Array(seed.utf8))
    }

    public func fill(_ buffer: UnsafeMutableRawBufferPointer) {
        guard buffer.count > 0 else { return }
        let block = counter.withLock { value -> UInt64 in
            defer { value += 1 }
            return value
        }
        // Each call draws from its own sub-key: BLAKE2b(seed || counter).
        var input = seed
        withUnsafeBytes(of: block.littleEndian) { input.append(contentsOf: $0) }
        var subkey = BLAKE2b.hash(input, outputLength: SeededKeystream.keyLength)
        SeededKeystream.fill(buffer, key: subkey)
        ConstantTime.wipe(&subkey)
    }
}
