import Foundation
import Glibc
import Logging

/// The moment the bench's relay child handed each pushed envelope to its
/// recipient's socket, for `HushBench daemon`'s "relay push → subscriber"
/// figure (issue 31's target names the push, not the deposit).
///
/// The relay logs "envelope deposited" (debug, with the envelope's
/// `messageID`) right after it gave the push frame to the hub, so a log
/// handler in the child, with no change to the relay, sees that moment.
/// Each such line becomes `messageID microsecondsSince1970` in a file;
/// everything else logged at error level is dropped, as the child's logger
/// did before.
struct PushTimeLogHandler: LogHandler {
    /// One descriptor for the child's life (it is the process's to close at exit).
    let descriptor: Int32
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .debug

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        guard event.message.description == "envelope deposited", case let .string(id)? = event.metadata?["messageID"] else { return }
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        let record = Array("\(id) \(Int64(now.tv_sec) * 1_000_000 + Int64(now.tv_nsec) / 1000)\n".utf8)
        // One write of one short line to an O_APPEND file: lines never interleave.
        _ = record.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
    }

    /// Reads a file that handlers wrote: messageID → microseconds since 1970.
    static func read(_ path: String) -> [Int64: Int64] {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return [:] }
        var times: [Int64: Int64] = [:]
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: " ")
            if fields.count == 2, let id = Int64(fields[0]), let at = Int64(fields[1]) { times[id] = at }
        }
        return times
    }
}
