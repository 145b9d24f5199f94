import Foundation
@testable import HushKit
import Testing

/// The archive's reads past the page cache (`DirectFileReader`): files of
/// sizes around the 4 KiB unit and the 1 MiB buffer come back byte for byte
/// whatever the size of each read, on a disk filesystem (O_DIRECT) and on
/// tmpfs (where O_DIRECT may be refused and reads go through the cache).
@Suite struct DirectFileReaderTests {
    @Test(arguments: ["/tmp", "/dev/shm"])
    func everySizeReadsBackWhole(in root: String) throws {
        guard FileManager.default.fileExists(atPath: root) else { return }
        let directory = root + "/direct-reader-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let megabyte = DirectFileReader.bufferLength
        for size in [0, 1, 4_095, 4_096, megabyte, megabyte + 4_097, 3 * megabyte - 5] {
            let bytes = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 >> 12) }
            let path = directory + "/file-\(size)"
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            for piece in [7, 65_536, 3 * megabyte] {
                let handle = try #require(FileHandle(forReadingAtPath: path))
                defer { try? handle.close() }
                let reader = DirectFileReader(descriptor: handle.fileDescriptor)
                var read: [UInt8] = []
                var chunk = [UInt8](repeating: 0, count: piece)
                while true {
                    let got = try chunk.withUnsafeMutableBytes { try reader.readBytes(into: $0.baseAddress!, count: piece) }
                    if got == 0 { break }
                    read += chunk[..<got]
                }
                // Compared first, so that a failure names the sizes instead of printing megabytes.
                let same = read == bytes
                #expect(same, "\(size) bytes in pieces of \(piece) under \(root): \(read.count) read")
                #expect(try reader.readBytes(into: &chunk, count: 1) == 0, "the end stays the end")
            }
        }
    }
}
