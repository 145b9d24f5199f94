import CSodium

/// A buffer for secret bytes: wiped when released, compared in constant time,
/// never printed. The bytes are reachable only through closures.
///
/// Two storage policies, because their costs differ by three orders of
/// magnitude on the machines Hush targets (measured: `sodium_malloc` about
/// 29 µs per allocation, `mlock` about 6 µs, a 1 KiB XChaCha20-Poly1305 seal
/// about 1 µs):
/// - `.guarded` for long-lived secrets (identity keys, the database key):
///   `sodium_malloc` memory with guard pages, locked out of swap, canary-checked.
/// - `.wiped` (the default) for short-lived keys on hot paths (message keys,
///   chain keys): ordinary heap memory, zeroed with `sodium_memzero` on release.
public final class SecureBytes: @unchecked Sendable {
    public enum Storage: Sendable {
        case wiped
        case guarded
    }

    // Invariant: `base` is valid for `count` bytes and owned by this object.
    // Mutation happens only through `withUnsafeMutableBytes`, which callers use
    // while they hold the only reference (key derivation in place).
    private let base: UnsafeMutableRawPointer
    public let count: Int
    public let storage: Storage

    /// A zero-filled secret buffer of `count` bytes.
    public init(count: Int, storage: Storage = .wiped) {
        precondition(count >= 0, "negative SecureBytes size")
        Sodium.ensureInitialised()
        self.count = count
        self.storage = storage
        let size = max(count, 1)
        switch storage {
        case .guarded:
            guard let pointer = sodium_malloc(size) else {
                fatalError("sodium_malloc failed: out of memory")
            }
            base = pointer
        case .wiped:
            base = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 16)
        }
        base.initializeMemory(as: UInt8.self, repeating: 0, count: size)
    }

    /// Copies `bytes` into a new secret buffer. The caller remains responsible
    /// for wiping its own copy when that copy was secret.
    public convenience init<C: Collection>(copying bytes: C, storage: Storage = .wiped) where C.Element == UInt8 {
        self.init(count: bytes.count, storage: storage)
        // One memcpy for contiguous sources (arrays, slices, Data, buffers): the
        // generic byte loop below costs a witness call per byte across modules,
        // and a session's state is copied on every message (issue 35, item 4).
        let base = self.base
        let copied: Bool? = bytes.withContiguousStorageIfAvailable { buffer in
            if let source = buffer.baseAddress, buffer.count > 0 { base.copyMemory(from: source, byteCount: buffer.count) }
            return true
        }
        if copied == true { return }
        var index = 0
        for byte in bytes {
            base.storeBytes(of: byte, toByteOffset: index, as: UInt8.self)
            index += 1
        }
    }

    /// A buffer of `count` bytes drawn from `source`.
    public convenience init(randomCount count: Int, using source: any RandomSource = SystemRandom(), storage: Storage = .wiped) {
        self.init(count: count, storage: storage)
        withUnsafeMutableBytes { source.fill($0) }
    }

    /// Creates a buffer whose bytes `body` writes. If `body` throws, the partly
    /// written buffer is wiped and released.
    public convenience init(
        count: Int,
        storage: Storage = .wiped,
        initializingWith body: (UnsafeMutableRawBufferPointer) throws -> Void
    ) rethrows {
        self.init(count: count, storage: storage)
        try withUnsafeMutableBytes(body)
    }

    deinit {
        switch storage {
        case .guarded:
            // sodium_free zeroes the region before unmapping it.
            sodium_free(base)
        case .wiped:
            sodium_memzero(base, max(count, 1))
            base.deallocate()
        }
    }

    public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try body(UnsafeRawBufferPointer(start: base, count: count))
    }

    public func withUnsafeMutableBytes<R>(_ body: (UnsafeMutableRawBufferPointer) throws -> R) rethrows -> R {
        try body(UnsafeMutableRawBufferPointer(start: base, count: count))
    }

    /// Copies the secret out into an ordinary array. Use only where the bytes
    /// must leave protected memory (writing a sealed file, say), and wipe the
    /// copy afterwards when possible.
    public func copyBytes() -> [UInt8] {
        withUnsafeBytes { Array($0) }
    }

    /// The bytes `range` of this buffer, as a new secret buffer.
    public func slice(_ range: Range<Int>, storage: Storage? = nil) -> SecureBytes {
        precondition(range.lowerBound >= 0 && range.upperBound <= count, "SecureBytes slice out of range")
        let result = SecureBytes(count: range.count, storage: storage ?? self.storage)
        result.withUnsafeMutableBytes { destination in
            if range.count > 0 {
                destination.baseAddress!.copyMemory(from: base + range.lowerBound, byteCount: range.count)
            }
        }
        return result
    }
}

extension SecureBytes: Equatable {
    /// Constant time in the contents; the lengths are not secret.
    public static func == (lhs: SecureBytes, rhs: SecureBytes) -> Bool {
        guard lhs.count == rhs.count else { return false }
        return lhs.withUnsafeBytes { a in
            rhs.withUnsafeBytes { b in ConstantTime.equals(a, b) }
        }
    }
}

extension SecureBytes: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public var description: String { "SecureBytes(\(count) bytes, redacted)" }
    public var debugDescription: String { description }
    /// Keeps `dump()` and test-failure output from walking into the bytes.
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}
