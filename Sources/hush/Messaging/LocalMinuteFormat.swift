#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// A time as the terminal shows it, `yyyy-MM-dd HH:mm` in the user's time
/// zone, written by hand from the C library's `localtime_r`.
///
/// Foundation's `DateFormatter` (ICU underneath) was about a tenth of the
/// daemon's time for `hush chats` on 2,000 conversations (perf, release
/// build, `make bench BENCH=largeaccount`): this is the same text without
/// ICU. A time `localtime_r` cannot represent, or a year outside 1 to 9999
/// (whose digits and eras ICU writes its own way), goes to `fallback`, the
/// formatter it replaces, so the output is the same for every input.
enum LocalMinuteFormat {
    /// `milliseconds` since 1970 as `yyyy-MM-dd HH:mm`, local time.
    static func string(milliseconds: Int64, fallback: (Int64) -> String) -> String {
        // Rounded down to the second, as Date and the formatter do, before as after 1970.
        var seconds = time_t(milliseconds >= 0 ? milliseconds / 1000 : -((-(milliseconds + 1)) / 1000) - 1)
        var fields = tm()
        guard localtime_r(&seconds, &fields) != nil else { return fallback(milliseconds) }
        let year = Int(fields.tm_year) + 1900
        guard (1...9999).contains(year) else { return fallback(milliseconds) }
        return String(unsafeUninitializedCapacity: 16) { buffer in
            func put(_ value: Int, digits: Int, at offset: Int) {
                var value = value
                for index in stride(from: offset + digits - 1, through: offset, by: -1) {
                    buffer[index] = UInt8(ascii: "0") + UInt8(value % 10)
                    value /= 10
                }
            }
            put(year, digits: 4, at: 0)
            buffer[4] = UInt8(ascii: "-")
            put(Int(fields.tm_mon) + 1, digits: 2, at: 5)
            buffer[7] = UInt8(ascii: "-")
            put(Int(fields.tm_mday), digits: 2, at: 8)
            buffer[10] = UInt8(ascii: " ")
            put(Int(fields.tm_hour), digits: 2, at: 11)
            buffer[13] = UInt8(ascii: ":")
            put(Int(fields.tm_min), digits: 2, at: 14)
            return 16
        }
    }
}
