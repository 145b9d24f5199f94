/// Whether `dump` output shows `bytes`: `dump` prints a byte array as one
/// decimal per line ("- 171"), never as hex, so a leak check must look for
/// that run of numbers. Compares the first 8 bytes as a contiguous run.
public func dumpShows(_ bytes: [UInt8], in dumped: String) -> Bool {
    let numbers = dumped.split(separator: "\n").compactMap { line in line.split(separator: " ").last.flatMap { UInt8($0) } }
    let needle = Array(bytes.prefix(8))
    guard !needle.isEmpty, numbers.count >= needle.count else { return false }
    return (0...(numbers.count - needle.count)).contains { Array(numbers[$0..<$0 + needle.count]) == needle }
}
