import Foundation
@testable import HushKit
import Testing

/// A restore writes its files past the page cache from one aligned buffer
/// (`DirectFileWriter`): whatever the sizes of the pieces, the file holds
/// exactly the bytes appended, owner-only, its last partial block included.
@Suite struct DirectFileWriterTests {
    /// In the temporary directory (a disk: the writes go past the page cache,
    /// as a restore's do) and, where there is one, in /dev/shm (a tmpfs, which
    /// refuses O_DIRECT: the page-cache way).
    static let places = [FileManager.default.temporaryDirectory.path]
        + (access("/dev/shm", W_OK) == 0 ? ["/dev/shm"] : [])

    @Test(arguments: places) func filesOfEverySizeHoldExactlyWhatWasAppended(place: String) throws {
        let directory = place + "/direct-writer-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let buffer = DirectFileWriter.bufferLength, block = DirectFileWriter.alignment
        // Piece sizes: none, less than a block, whole blocks, a whole buffer and more, ending mid-block.
        let cases: [[Int]] = [[], [1], [block], [block - 1, 2], [65_536, 65_536, 100], [buffer], [buffer + 1], [3 * buffer / 2, buffer / 2 + 17],
                              Array(repeating: 65_536, count: 20) + [4_095]]
        for (index, pieces) in cases.enumerated() {
            let path = directory + "/\(index).blob"
            let bytes = (0..<pieces.reduce(0, +)).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ index) }
            let writer = try DirectFileWriter(creating: path)
            var offset = 0
            for piece in pieces {
                try bytes[offset..<offset + piece].withUnsafeBytes { try writer.append($0) }
                offset += piece
            }
            try writer.finish()
            try writer.handle.close()
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data(bytes), "pieces \(pieces)")
            let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
            #expect(mode == 0o600)
        }
        // A file that exists is never written over.
        #expect(throws: HushError.self) { try DirectFileWriter(creating: directory + "/0.blob") }
    }
}
