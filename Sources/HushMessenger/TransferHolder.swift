#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The process that holds an attachment's transfer (an upload or a
/// download claimed in the store) or a sealing file: another process leaves
/// it alone while it runs.
enum TransferHolder {
    /// Whether process `pid` still runs (a transfer's holder).
    static func isAlive(_ pid: Int32) -> Bool { kill(pid, 0) == 0 || errno != ESRCH }
}
