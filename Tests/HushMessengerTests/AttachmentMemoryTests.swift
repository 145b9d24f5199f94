import Foundation
import Glibc
import HushCrypto
@testable import HushMessenger
import HushProtocol
import HushTesting
import Testing

/// Memory stays flat whatever the file's size: sealing a file into a blob,
/// checking the blob as it "downloads", and exporting it each hold a chunk or
/// two. Issue 14's 512 MiB file (about 11 s in a debug build, 2 GiB of
/// temporary files); HUSH_ATTACHMENT_MEMORY_MIB=N for another size. The bound
/// leaves room for the other suites running in this process at the same time
/// (VmHWM is the whole process's; alone, the growth is under 24 MiB), while
/// an implementation holding the file would grow by its size.
@Suite(.serialized) struct AttachmentMemoryTests {
    static var mebibytes: Int { ProcessInfo.processInfo.environment["HUSH_ATTACHMENT_MEMORY_MIB"].flatMap(Int.init) ?? 512 }

    /// This process's resident set high-water mark (VmHWM), after resetting it.
    static func resetPeak() { try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8) }
    static func peak() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
              let kilobytes = Int(line.split(separator: " ").dropFirst().first ?? "") else { return 0 }
        return kilobytes << 10
    }

    @Test func sealCheckAndExportHoldAChunkOrTwo() throws {
        let directory = try TemporaryDirectory(label: "attachment-memory")
        let size = Self.mebibytes << 20
        // A file of the size with a pattern every 4 KiB (written in 1 MiB blocks).
        let source = directory.path("file.bin")
        FileManager.default.createFile(atPath: source, contents: nil)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: source))
        let block = Data((0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 >> 12) })
        for _ in 0..<Self.mebibytes { try handle.write(contentsOf: block) }
        try handle.close()
        let files = AttachmentFiles(directory: directory.path("attachments"))
        let key = SecureBytes(randomCount: 32)

        Self.resetPeak()
        let before = Self.peak()
        // Sealed as `hush send --file` does, its latest bytes held for the upload that follows it.
        let feed = SealedBlobFeed(), sealingPath = files.sealingPath(using: SystemRandom())
        let digest = try files.seal(try files.openSource(source), into: sealingPath, key: key, wrote: feed.append)
        let sealed = (size: Int64(size), digest: digest)
        try files.keep(sealingPath, as: 1)
        let input = try PosixFile.openForReading(files.blobPath(1))
        // Checked and decrypted as it "downloads" (`fetch --out`, one pass) ...
        let single = try ExportFile(destination: directory.path("single.bin"), using: SystemRandom())
        let sink = try VerifyingBlobSink(files: files, id: 2, key: key, size: sealed.size, digest: sealed.digest, export: single) { _ in }
        while true {
            let piece = try input.read(upTo: 64 << 10)
            if piece.isEmpty { break }
            try sink.write(piece)
        }
        try sink.finish()
        try single.commit()
        // ... and exported again from the stored copy.
        try files.export(2, key: key, size: sealed.size, digest: sealed.digest,
                         to: ExportFile(destination: directory.path("out.bin"), using: SystemRandom()))
        let growth = Self.peak() - before
        #expect(growth < min(128 << 20, size / 2), "peak RSS grew by \(growth >> 20) MiB for a \(Self.mebibytes) MiB file")
        #expect(sealed.size == Int64(size))
        #expect(FileManager.default.contentsEqual(atPath: source, andPath: directory.path("out.bin")))
        #expect(FileManager.default.contentsEqual(atPath: source, andPath: directory.path("single.bin")))
    }
}
