import Foundation
import Synchronization

/// Writes a restore's attachment files on a thread of its own, past the page
/// cache (`DirectFileWriter`), while the reading thread decrypts the next
/// records: each O_DIRECT write waits for the disk, which took the reading
/// thread 0.6-1.4 s of a restore's 1 GiB (measured in-process, on a shared
/// machine), on top of its decryption.
///
/// The reading thread hands over the bytes in pieces of about
/// `pieceLength` through a bounded queue (`waitingPieces` at most), so memory
/// stays flat. A finished file goes to `syncs`, synced while the next ones
/// are written. A failure stops the reading thread at its next hand-over.
///
/// The reading thread must end every writer with `finish` or `abandon` (in a
/// `defer`): the writing thread holds it until one of them comes.
///
/// `@unchecked Sendable`: `piece` and `ended` belong to the reading thread,
/// the file being written to the writing thread.
final class RestoredFileWriter: @unchecked Sendable {
    enum Step: Sendable {
        /// Creates `path` (refused when it exists).
        case open(path: String)
        case bytes([UInt8])
        /// The file is complete: written out, then synced and closed by `syncs`.
        case close
        /// The last step: `abandon` (the restore failed) or not.
        case stop(abandoned: Bool)
    }

    static let pieceLength = 1 << 20
    static let waitingPieces = 8

    let syncs: BackgroundFileSync
    private let steps: BoundedHandover<Step>
    private var piece: [UInt8] = []
    private var ended = false
    private let failure = Mutex<HushError?>(nil)
    private let done = DispatchSemaphore(value: 0)

    init(syncs: BackgroundFileSync, waitingPieces: Int = RestoredFileWriter.waitingPieces) {
        self.syncs = syncs
        steps = BoundedHandover(capacity: waitingPieces)
        let thread = Thread { [self] in
            write()
            done.signal()
        }
        thread.name = "hush.restore.files"
        thread.start()
    }

    /// Begins the file at `path`, after the one before it.
    func open(_ path: String) throws(HushError) {
        try put(.open(path: path))
    }

    /// Appends `bytes` to the file begun last.
    func append(_ bytes: ArraySlice<UInt8>) throws(HushError) {
        if piece.isEmpty { piece.reserveCapacity(Self.pieceLength + bytes.count) }
        piece.append(contentsOf: bytes)
        if piece.count >= Self.pieceLength { try handOver() }
    }

    /// The file begun last is complete.
    func close() throws(HushError) {
        try handOver()
        try put(.close)
    }

    /// Returns once every file handed over is written (each then synced by `syncs`).
    ///
    /// - Throws: the first failure, a `HushError` of kind `storage`.
    func finish() throws(HushError) {
        precondition(!ended)
        ended = true
        steps.put(.stop(abandoned: false))
        done.wait()
        if let error = failure.withLock({ $0 }) { throw error }
    }

    /// The restore failed: the file being written is left as it is (the
    /// folder is removed); returns once the writing thread has stopped. Does
    /// nothing after `finish`.
    func abandon() {
        guard !ended else { return }
        ended = true
        steps.put(.stop(abandoned: true))
        done.wait()
    }

    private func handOver() throws(HushError) {
        guard !piece.isEmpty else { return }
        let full = piece
        piece = []
        try put(.bytes(full))
    }

    private func put(_ step: Step) throws(HushError) {
        if let error = failure.withLock({ $0 }) { throw error }
        steps.put(step)
    }

    /// The writing thread; after a failure it takes (and drops) what still
    /// comes, so the queue ends empty and `put` never waits forever.
    private func write() {
        var file: DirectFileWriter?
        while true {
            let step = steps.take()
            // Abandoned, failed or done: a file still open (only when abandoned) closes as it is dropped; its folder goes.
            if case .stop = step { return }
            guard failure.withLock({ $0 == nil }) else { continue }
            do throws(HushError) {
                switch step {
                case let .open(path):
                    file = try DirectFileWriter(creating: path)
                case let .bytes(bytes):
                    guard let file else { preconditionFailure("bytes come after open") }
                    try bytes.withUnsafeBufferPointer { buffer throws(HushError) in try file.append(UnsafeRawBufferPointer(buffer)) }
                case .close:
                    guard let written = file else { preconditionFailure("close comes after open") }
                    file = nil
                    try written.finish()
                    syncs.syncAndClose(written.handle, path: written.path)
                case .stop:
                    break
                }
            } catch {
                record(error)
            }
        }
    }

    private func record(_ error: HushError) {
        failure.withLock { $0 = $0 ?? error }
    }
}
