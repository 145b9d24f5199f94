import CSQLCipher
import Dispatch
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import HushCrypto
import Synchronization

/// Takes WAL checkpoints off the commit path.
///
/// By default SQLite checkpoints inside the COMMIT that takes the log past
/// 1,000 frames: that one commit copies some 4 MiB of pages into the
/// database file and waits for two fsyncs, and every caller queued behind it
/// waits too. On the relay this was the tail of deposit → push latency; on a
/// client, of send → stored. Here the writer's commit only notes the log's
/// length (SQLite's WAL hook, which replaces the automatic checkpoint) and,
/// past `threshold` frames, asks a second connection on a queue of its own
/// to run a PASSIVE checkpoint, which copies pages while the writer goes on
/// appending to the log. Once a checkpoint has copied every frame, the
/// writer's next transaction starts the log again from its beginning.
///
/// Under a steady stream of commits the second connection finishes a pass
/// while the writer is already committing the next frames, so the log never
/// becomes fully copied at the start of a transaction and never starts
/// again. From `ceiling` frames on, the writer therefore checkpoints inside
/// its commits, as SQLite would have: it copies only what the last background
/// pass left (a few frames, not a thousand pages), and its next transaction
/// starts the log again. A checkpointer that cannot run at all leaves the
/// writer copying everything there, as SQLite does, so the log stays bounded.
public final class BackgroundCheckpointer: Sendable {
    public struct Counts: Sendable, Equatable {
        /// Checkpoints run by the second connection.
        public var background = 0
        /// Checkpoints the writer ran itself at the ceiling.
        public var inline = 0
        /// The longest the log was after a commit, in frames.
        public var longestLog: Int32 = 0
        /// Its length after the latest commit.
        public var latestLog: Int32 = 0
        /// Commits that wrote to the log (each one fsync of it).
        public var commits = 0
    }

    private struct State {
        var scheduled = false
        var counts = Counts()
    }

    let threshold: Int32
    let ceiling: Int32
    static let passesPerRun = 64
    private let path: String
    private let key: SecureBytes?
    let queue = DispatchQueue(label: "hush.database.checkpoint", qos: .utility)
    /// Opened on `queue` at the first checkpoint (a short command that
    /// never fills the log never opens it), touched only there.
    private nonisolated(unsafe) var connection: Database?
    private let state = Mutex(State())

    init(path: String, key: SecureBytes?, threshold: Int32, ceiling: Int32) {
        self.path = path
        // A copy of its own, in guarded memory like the caller's.
        self.key = key.map { key in
            SecureBytes(count: key.count, storage: .guarded) { copy in key.withUnsafeBytes { copy.copyMemory(from: $0) } }
        }
        self.threshold = max(1, threshold)
        self.ceiling = max(self.threshold + 1, ceiling)
    }

    public var counts: Counts { state.withLock { $0.counts } }

    /// Waits until the checkpoint asked for, if any, has run (tests, benchmarks).
    public func waitUntilIdle() { queue.sync {} }

    /// Called by the WAL hook after each commit of the writer.
    func committed(frames: Int32, writer: OpaquePointer) {
        enum Step { case none, inline, schedule }
        // One lock per commit: the counts, and whether a pass is to be asked for.
        let step = state.withLock { state -> Step in
            state.counts.longestLog = max(state.counts.longestLog, frames)
            state.counts.latestLog = frames
            state.counts.commits += 1
            if frames >= ceiling {
                state.counts.inline += 1
                return .inline
            }
            guard frames >= threshold, !state.scheduled else { return .none }
            state.scheduled = true
            return .schedule
        }
        switch step {
        case .none:
            return
        case .inline:
            // PASSIVE, as SQLite's own: it never waits. When a background
            // pass holds the checkpoint (SQLITE_BUSY), the next commit tries
            // again; FULL would wait for every reader (another process's long
            // read, on a client) inside this commit.
            sqlite3_wal_checkpoint_v2(writer, nil, SQLITE_CHECKPOINT_PASSIVE, nil, nil)
            return
        case .schedule:
            break
        }
        queue.async { [self] in
            // Cleared before the work: a commit during it schedules the next run.
            state.withLock { $0.scheduled = false }
            do {
                if connection == nil { connection = try Database(path: path, key: key, createIfMissing: false) }
                guard let connection else { return }
                // A PASSIVE checkpoint copies the frames the log held when it
                // began; the writer appends meanwhile, and the log starts
                // again only once every frame is copied. So it goes again
                // while frames are left (each pass copies only the new ones),
                // a bounded number of times.
                for _ in 0..<Self.passesPerRun {
                    var logFrames: Int32 = 0, copiedFrames: Int32 = 0
                    let code = sqlite3_wal_checkpoint_v2(connection.handle, nil, SQLITE_CHECKPOINT_PASSIVE, &logFrames, &copiedFrames)
                    state.withLock { $0.counts.background += 1 }
                    if code == SQLITE_BUSY {
                        // The writer is checkpointing at the ceiling: after it.
                        usleep(1_000)
                        continue
                    }
                    guard code == SQLITE_OK, copiedFrames < logFrames else { break }
                }
            } catch {
                // Not opened (out of descriptors, say): the writer checkpoints
                // itself at the ceiling, as SQLite would have at the threshold.
            }
        }
    }
}

extension Database {
    /// Moves this connection's WAL checkpoints to a `BackgroundCheckpointer`
    /// with its own connection to the same file (opened with `key`).
    /// `threshold` is SQLite's usual 1,000 frames by default.
    @discardableResult
    public func checkpointInBackground(key: SecureBytes?, threshold: Int32 = 1_000, ceiling: Int32 = 2_000) -> BackgroundCheckpointer {
        let checkpointer = BackgroundCheckpointer(path: path, key: key, threshold: threshold, ceiling: ceiling)
        self.checkpointer = checkpointer
        sqlite3_wal_hook(handle, { context, writer, _, frames in
            guard let context, let writer else { return SQLITE_OK }
            Unmanaged<BackgroundCheckpointer>.fromOpaque(context).takeUnretainedValue().committed(frames: frames, writer: writer)
            return SQLITE_OK
        }, Unmanaged.passUnretained(checkpointer).toOpaque())
        return checkpointer
    }
}
