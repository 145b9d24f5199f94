import CSodium

/// Where random bytes come from. Production code uses `SystemRandom`; tests
/// and benchmarks inject HushTesting's `DeterministicRandom` so that every run
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
