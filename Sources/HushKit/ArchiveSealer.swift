import Foundation
import HushCrypto
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The thread that seals an archive's records in order and writes them:
/// sealed records gathered into writes of about `writeLength` bytes (a store
/// of many small rows would otherwise cost a system call per row).
final class ArchiveSealer: @unchecked Sendable {
    /// Records one after another; record `i` (type byte and body) ends at `ends[i]`.
    struct Batch: Sendable {
        var bytes: [UInt8] = []
        var ends: [Int] = []
    }

    enum Step: Sendable {
        case records(Batch)
        case finish(records: UInt64)
        case abandon
    }

    static let writeLength = 1 << 20
    /// Every this many bytes written, on Linux, the disk is asked to start writing them
    /// (POSIX_FADV_DONTNEED starts the writeback of a range's dirty pages and
    /// drops only clean ones: these are all dirty, so the archive stays in the
    /// page cache): the kernel would otherwise start on a GiB of dirty pages
    /// only at the caller's fsync, which then waited for all of it.
    static let writebackLength = 8 << 20

    // `@unchecked Sendable`: the file, the stream state and `pending` belong
    // to the sealing thread alone once it started.
    private let file: FileHandle
    private let pusher: SecretStream.Pusher
    /// Sealed bytes not written yet: `pending[..<pendingCount]`, room for a
    /// write's worth and one more file chunk.
    private let pending = UnsafeMutableRawBufferPointer.allocate(byteCount: ArchiveSealer.writeLength + 2 * BackupArchive.fileChunkLength,
                                                                 alignment: 16)
    private var pendingCount = 0
    /// Bytes written to the file, and how many of them were handed to writeback.
    private var written = 0
    private var writtenBack = 0
    private let steps: BoundedHandover<Step>
    private let failure = Mutex<(any Error)?>(nil)
    private let done = DispatchSemaphore(value: 0)

    init(file: FileHandle, pusher: SecretStream.Pusher, header: [UInt8], waitingBatches: Int) {
        self.file = file
        self.pusher = pusher
        pending.copyBytes(from: header)
        pendingCount = header.count
        steps = BoundedHandover(capacity: waitingBatches)
        let thread = Thread { [self] in
            run()
            done.signal()
        }
        thread.name = "hush.backup.seal"
        thread.start()
    }

    deinit { pending.deallocate() }

    func put(_ batch: Batch) throws {
        if let error = failure.withLock({ $0 }) {
            var batch = batch
            ConstantTime.wipe(&batch.bytes)
            throw error
        }
        steps.put(.records(batch))
    }

    /// The last step (`finish` or `abandon`); returns once the thread ended.
    ///
    /// - Throws: the thread's failure, if any.
    func stop(_ step: Step) throws {
        steps.put(step)
        done.wait()
        if let error = failure.withLock({ $0 }) { throw error }
    }

    /// Seals and writes until the last step; after a failure, takes (and
    /// wipes) what still comes, so the queue ends empty and `put` never waits forever.
    private func run() {
        while true {
            let step = steps.take()
            let failed = failure.withLock { $0 != nil }
            do {
                switch step {
                case var .records(batch):
                    defer { ConstantTime.wipe(&batch.bytes) }
                    guard !failed else { continue }
                    var start = 0
                    for end in batch.ends {
                        try batch.bytes.withUnsafeBytes { try seal(UnsafeRawBufferPointer(rebasing: $0[start..<end])) }
                        start = end
                    }
                case let .finish(records):
                    guard !failed else { return }
                    let body = [BackupArchive.RecordType.end.rawValue] + BackupArchive.bigEndian(records)
                    try body.withUnsafeBytes { try seal($0, tag: .final) }
                    try flush()
                    return
                case .abandon:
                    return
                }
            } catch {
                failure.withLock { $0 = $0 ?? error }
            }
        }
    }

    /// Seals `record` straight into `pending` behind its length.
    private func seal(_ record: UnsafeRawBufferPointer, tag: SecretStream.Tag = .message) throws {
        let length = record.count + SecretStream.overhead
        if pendingCount + 4 + length > pending.count { try flush() }
        if 4 + length > pending.count {
            // Larger than any record a backup makes (a file chunk is 64 KiB): written alone.
            let sealed = pusher.push(record, tag: tag)
            try file.write(contentsOf: BackupArchive.bigEndian(UInt32(sealed.count)) + sealed)
            written += 4 + sealed.count
            return
        }
        let out = UnsafeMutableRawBufferPointer(rebasing: pending[pendingCount...])
        out.copyBytes(from: BackupArchive.bigEndian(UInt32(length)))
        let sealed = pusher.push(record, tag: tag, into: UnsafeMutableRawBufferPointer(rebasing: out[4...]))
        precondition(sealed == length)
        pendingCount += 4 + length
        if pendingCount >= Self.writeLength { try flush() }
    }

    private func flush() throws {
        guard pendingCount > 0 else { return }
        try file.write(contentsOf: Data(bytesNoCopy: pending.baseAddress!, count: pendingCount, deallocator: .none))
        written += pendingCount
        pendingCount = 0
        #if os(Linux)
        if written - writtenBack >= Self.writebackLength {
            // Dirty pages only: starts their writeback, drops nothing (see `writebackLength`).
            _ = posix_fadvise(file.fileDescriptor, off_t(writtenBack), off_t(written - writtenBack), POSIX_FADV_DONTNEED)
            writtenBack = written
        }
        #endif
    }
}
