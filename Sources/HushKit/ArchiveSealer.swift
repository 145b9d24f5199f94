import Foundation
import HushCrypto
import HushMessenger
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The threads that seal an archive's records in order and write them: the
/// sealing thread seals straight into buffers of about `writeLength` bytes (a
/// store of many small rows would otherwise cost a system call per row),
/// which a writing thread writes while the next ones are sealed (the kernel's
/// copy of each write was the sealing thread's largest cost after libsodium),
/// past the page cache (`DirectWriter`: `perf` over a full-scale create put
/// 37 % of its samples in that copy into fresh page-cache pages, 67 % in the
/// kernel; the disk now reads the bytes from the process's own buffer, and
/// the caller's fsync has nothing left to wait for but the disk's cache).
final class ArchiveSealer: @unchecked Sendable {
    /// Records one after another; record `i` (type byte and body) ends at
    /// `ends[i]`, its last `clear[i]` bytes carried in the clear (version 2).
    struct Batch: Sendable {
        var bytes: [UInt8] = []
        var ends: [Int] = []
        var clear: [Int] = []
    }

    enum Step: Sendable {
        case records(Batch)
        case finish(records: UInt64)
        case abandon
    }

    static let writeLength = 1 << 20
    /// A write's worth and room for one more file chunk.
    static let bufferLength = writeLength + 2 * BackupArchive.fileChunkLength
    /// Buffers waiting for the writing thread at most (4 MiB).
    static let waitingWrites = 4

    enum Write: Sendable {
        case write(SealedBuffer)
        case stop
    }
    // `@unchecked Sendable`: the stream state and `pending` belong to the
    // sealing thread alone once it started, the file to the writing thread.
    private let file: FileHandle
    private let pusher: SecretStream.Pusher
    /// The archive's format version: how records are laid out (`BackupArchive.frameLength`).
    private let version: UInt16
    /// Sealed bytes not handed to the writing thread yet.
    private var pending = SealedBuffer(capacity: ArchiveSealer.bufferLength)
    /// Full buffers on their way to the writing thread, `stop` last.
    private let writes = BoundedHandover<Write>(capacity: ArchiveSealer.waitingWrites)
    private let writingDone = DispatchSemaphore(value: 0)
    private let steps: BoundedHandover<Step>
    private let failure = Mutex<(any Error)?>(nil)
    private let done = DispatchSemaphore(value: 0)

    init(file: FileHandle, pusher: SecretStream.Pusher, header: [UInt8], version: UInt16, waitingBatches: Int) {
        self.file = file
        self.pusher = pusher
        self.version = version
        pending.bytes.copyBytes(from: header)
        pending.count = header.count
        steps = BoundedHandover(capacity: waitingBatches)
        let sealing = Thread { [self] in
            run()
            // Everything sealed is handed over: the writing thread ends after it.
            writes.put(.stop)
            writingDone.wait()
            done.signal()
        }
        sealing.name = "hush.backup.seal"
        let writing = Thread { [self] in
            writeBuffers()
            writingDone.signal()
        }
        writing.name = "hush.backup.write"
        writing.start()
        sealing.start()
    }

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
                    for (end, clear) in zip(batch.ends, batch.clear) {
                        try batch.bytes.withUnsafeBytes { try seal(UnsafeRawBufferPointer(rebasing: $0[start..<end]), clear: clear) }
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

    /// Seals `record` straight into `pending` behind its length (§19.3); its
    /// last `clear` bytes go after the chunk as they are, authenticated as
    /// its associated data (version 2; always 0 for version 1).
    private func seal(_ record: UnsafeRawBufferPointer, clear: Int = 0, tag: SecretStream.Tag = .message) throws {
        let frame = BackupArchive.frameLength(version: version)
        let message = UnsafeRawBufferPointer(rebasing: record[..<(record.count - clear)])
        let associated = UnsafeRawBufferPointer(rebasing: record[(record.count - clear)...])
        let sealedLength = message.count + SecretStream.overhead
        let length = frame + sealedLength + clear
        if pending.count + length > pending.bytes.count {
            try flush()
            // Larger than any record a backup makes (a file chunk is 64 KiB): a buffer of its own.
            if length > pending.bytes.count { pending = SealedBuffer(capacity: length) }
        }
        let out = UnsafeMutableRawBufferPointer(rebasing: pending.bytes[pending.count..<pending.count + length])
        out.copyBytes(from: BackupArchive.bigEndian(UInt32(sealedLength)))
        if frame == 8 {
            UnsafeMutableRawBufferPointer(rebasing: out[4..<8]).copyBytes(from: BackupArchive.bigEndian(UInt32(clear)))
        }
        let sealed = pusher.push(message, associatedData: associated, tag: tag,
                                 into: UnsafeMutableRawBufferPointer(rebasing: out[frame..<frame + sealedLength]))
        precondition(sealed == sealedLength)
        if clear > 0 { UnsafeMutableRawBufferPointer(rebasing: out[(frame + sealedLength)...]).copyMemory(from: associated) }
        pending.count += length
        if pending.count >= Self.writeLength { try flush() }
    }

    /// Hands `pending` to the writing thread and begins a new one.
    private func flush() throws {
        guard pending.count > 0 else { return }
        if let error = failure.withLock({ $0 }) { throw error }
        writes.put(.write(pending))
        pending = SealedBuffer(capacity: Self.bufferLength)
    }

    /// The writing thread: writes each buffer; after a failure, takes (and
    /// drops) what still comes until `stop`.
    private func writeBuffers() {
        // Past the page cache (see `DirectWriter`): on this project's VMs the kernel's copy of each
        // buffered write into fresh page-cache pages was most of a create's CPU.
        let direct = DirectWriter(descriptor: file.fileDescriptor, path: "the backup archive")
        while true {
            guard case let .write(buffer) = writes.take() else {
                guard failure.withLock({ $0 == nil }) else { return }
                do { try direct.finish() } catch { failure.withLock { $0 = $0 ?? HushError(.storage, reason: error.description) } }
                return
            }
            guard failure.withLock({ $0 == nil }) else { continue }
            do {
                try direct.write(UnsafeRawBufferPointer(rebasing: buffer.bytes[..<buffer.count]))
            } catch {
                failure.withLock { $0 = $0 ?? HushError(.storage, reason: error.description) }
            }
        }
    }
}

/// Sealed bytes on their way to the file: `bytes[..<count]`.
final class SealedBuffer: @unchecked Sendable {
    // `@unchecked Sendable`: filled by the sealing thread, then handed over
    // whole to the writing thread, which alone reads it after.
    let bytes: UnsafeMutableRawBufferPointer
    var count = 0

    init(capacity: Int) { bytes = .allocate(byteCount: capacity, alignment: 16) }

    deinit { bytes.deallocate() }
}
