import CSodium

/// Comparisons whose running time does not depend on where inputs differ.
public enum ConstantTime {
    /// True when both buffers have the same length and contents. The time
    /// taken depends on the length only.
    public static func equals(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Bool {
        guard a.count == b.count else { return false }
        guard a.count > 0 else { return true }
        Sodium.ensureInitialised()
        return sodium_memcmp(a.baseAddress!, b.baseAddress!, a.count) == 0
    }

    public static func equals<A: ContiguousByteStorage, B: ContiguousByteStorage>(_ a: A, _ b: B) -> Bool {
        a.withUnsafeBytes { pa in b.withUnsafeBytes { pb in equals(pa, pb) } }
    }

    /// Overwrites `buffer` with zeros in a way the optimiser may not remove.
    public static func wipe(_ buffer: UnsafeMutableRawBufferPointer) {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return }
        sodium_memzero(base, buffer.count)
    }

    public static func wipe(_ bytes: inout [UInt8]) {
        bytes.withUnsafeMutableBytes { wipe($0) }
    }
}

/// Anything that can lend its bytes contiguously: `[UInt8]`, `ArraySlice`,
/// unsafe buffers and `SecureBytes`. (Named apart from Foundation's
/// `ContiguousBytes` so that modules importing both stay unambiguous.)
public protocol ContiguousByteStorage {
    func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R
}

extension Array: ContiguousByteStorage where Element == UInt8 {}
extension ArraySlice: ContiguousByteStorage where Element == UInt8 {}
extension UnsafeRawBufferPointer: ContiguousByteStorage {
    public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R { try body(self) }
}
extension SecureBytes: ContiguousByteStorage {}

extension UnsafeRawBufferPointer {
    /// Lends a non-null base address even for an empty buffer: some libsodium
    /// functions assert non-null pointers although they read zero bytes.
    @inline(__always)
    func withNonNullBaseAddress<R>(_ body: (UnsafeRawPointer) throws -> R) rethrows -> R {
        if let base = baseAddress { return try body(base) }
        var placeholder: UInt8 = 0
        return try withUnsafePointer(to: &placeholder) { try body(UnsafeRawPointer($0)) }
    }
}
