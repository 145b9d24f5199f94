#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

extension Array where Element == UInt8 {
    /// Overwrites the bytes with zeros in a way the optimiser may not drop
    /// (a passphrase must not linger in memory after it is handed on).
    mutating func wipe() {
        withUnsafeMutableBytes { raw in
            guard let base = raw.baseAddress, raw.count > 0 else { return }
            #if canImport(Darwin)
            _ = memset_s(base, raw.count, 0, raw.count)
            #else
            explicit_bzero(base, raw.count)
            #endif
        }
    }
}
