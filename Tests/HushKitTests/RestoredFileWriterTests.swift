import Foundation
@testable import HushKit
import Testing

/// The restore's file-writing thread (RestoredFileWriter), with a queue of
/// one piece so the reading thread waits on it: files of every size come out
/// byte for byte; a failure there (a file that cannot be created) reaches
/// the reading thread, and neither a failure nor an abandon waits forever.
@Suite struct RestoredFileWriterTests {
    static func folder() throws -> String {
        let directory = FileManager.default.temporaryDirectory.path + "/restored-files-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        return directory
    }

    static func content(_ size: Int, seed: Int) -> [UInt8] { (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ seed) } }

    @Test func filesOfEverySizeComeOutByteForByte() throws {
        let directory = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let syncs = BackgroundFileSync()
        let writer = RestoredFileWriter(syncs: syncs, waitingPieces: 1)
        let sizes = [0, 1, 4_095, 4_097, 3 * RestoredFileWriter.pieceLength + 12_345]
        for (index, size) in sizes.enumerated() {
            try writer.open(directory + "/f\(index)")
            let bytes = Self.content(size, seed: index)
            var offset = 0
            while offset < size {
                let end = min(offset + 65_536, size)
                try writer.append(bytes[offset..<end])
                offset = end
            }
            try writer.close()
        }
        try writer.finish()
        try syncs.finish()
        for (index, size) in sizes.enumerated() {
            #expect(try [UInt8](Data(contentsOf: URL(fileURLWithPath: directory + "/f\(index)"))) == Self.content(size, seed: index), "file \(index)")
        }
    }

    @Test func aFileThatCannotBeCreatedStopsTheRestore() throws {
        let directory = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let syncs = BackgroundFileSync()
        let writer = RestoredFileWriter(syncs: syncs, waitingPieces: 1)
        let failure = #expect(throws: HushError.self) {
            try writer.open(directory + "/missing-folder/f")
            for _ in 0..<64 { try writer.append(ArraySlice(Self.content(65_536, seed: 1))) }
            try writer.close()
            try writer.finish()
        }
        writer.abandon()
        try syncs.finish()
        #expect(failure?.kind == .storage, "\(String(describing: failure))")
    }

    @Test func anAbandonedWriteStopsMidFile() throws {
        let directory = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let syncs = BackgroundFileSync()
        let writer = RestoredFileWriter(syncs: syncs, waitingPieces: 1)
        try writer.open(directory + "/f")
        for _ in 0..<40 { try writer.append(ArraySlice(Self.content(65_536, seed: 2))) }
        writer.abandon()
        writer.abandon()
        try syncs.finish()
    }
}
