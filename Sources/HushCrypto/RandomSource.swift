import CSodium
import Synchronization

/// Where random bytes come from. Production code uses `SystemRandom`; tests
/// and vector generators inject `DeterministicRandom` so that every run
/// produces the same bytes from the same seed.
public protocol RandomSource: Sendable {
    func fill(_ buffer: UnsafeMutableRawBufferPointer)
}

extension RandomSource {
    public func bytes(_ count: Int) -> [UInt8] {
        var result = [UInt8](repeating: 0, count: count)
        result.withUnsafeMutableBytes { fill($0) }
        return result
    }

    /// A uniformly distributed integer in `0..<upperBound`.
    public func uniform(_ upperBound: UInt32) -> UInt32 {
        precondition(upperBound > 0)
        // Rejection sampling avoids modulo bias.
        let limit = UInt32.max - (UInt32.max % upperBound)
        while true {
            var value: UInt32 = 0
            withUnsafeMutableBytes(of: &value) { fill($0) }
            if value < limit { return value % upperBound }
        }
    }
}

/// The operating system's CSPRNG, through libsodium's `randombytes_buf`.
public struct SystemRandom: RandomSource {
    public init() { Sodium.ensureInitialised() }

    public func fill(_ buffer: UnsafeMutableRawBufferPointer) {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return }
        randombytes_buf(base, buffer.count)
    }
}

/// A deterministic stream for tests and vector generation: the bytes of
/// `randombytes_buf_deterministic` (ChaCha20) keyed by BLAKE2b(seed) and a
/// block counter, so successive calls continue the stream rather than
/// repeating it. Never use it for real keys.
public final class DeterministicRandom: RandomSource {
    private let seed: [UInt8]
    private let counter = Mutex<UInt64>(0)

    /// `seed` may be any length; it is hashed to the 32-byte ChaCha20 key.
    public init(seed: [UInt8]) {
        Sodium.ensureInitialised()
        self.seed = BLAKE2b.hash(seed, outputLength: 32)
    }

    public convenience init(seed: String) {
        self.init(seed: Array(seed.utf8))
    }

    public func fill(_ buffer: UnsafeMutableRawBufferPointer) {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return }
        let block = counter.withLock { value -> UInt64 in
            defer { value += 1 }
            return value
        }
        // Each call draws from its own sub-key: BLAKE2b(seed || counter).
        var input = seed
        withUnsafeBytes(of: block.littleEndian) { input.append(contentsOf: $0) }
        var subkey = BLAKE2b.hash(input, outputLength: Int(randombytes_SEEDBYTES))
        subkey.withUnsafeBufferPointer { key in
            randombytes_buf_deterministic(base, buffer.count, key.baseAddress!)
        }
        ConstantTime.wipe(&subkey)
    }
}
