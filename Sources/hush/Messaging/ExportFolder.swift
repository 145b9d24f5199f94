#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Foundation

/// The folder `hush export` writes: plaintext, so readable by the user only
/// (folders 0700, files 0600). Everything goes into a staging folder beside
/// the destination, which takes the destination's name only at the end
/// (rename(2), which replaces an empty folder and refuses one that filled up
/// meanwhile): a failed export leaves no part of itself under that name, and
/// removes its staging folder. One killed mid-way leaves `.hush-export-PID-…`
/// beside it, removed by the next export into the same parent once PID is gone.
struct ExportFolder {
    /// Where the export ends up.
    let destination: String
    /// Where it is written until then.
    let staging: String

    static let stagingPrefix = ".hush-export-"

    /// Refuses a destination that exists and is not an empty folder, or
    /// whose parent does not exist, before anything is written.
    static func refusingNonEmpty(_ path: String) throws -> String {
        var destination = path
        while destination.count > 1 && destination.hasSuffix("/") { destination.removeLast() }
        guard !destination.isEmpty, destination != "/" else {
            throw CommandError(.usage, "--to needs a folder to create, not '\(path)'")
        }
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: destination, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else {
                throw CommandError(.failure, "\(destination) exists and is not a folder: give --to a new or empty folder")
            }
            let entries = (try? FileManager.default.contentsOfDirectory(atPath: destination)) ?? ["?"]
            guard entries.isEmpty else {
                throw CommandError(.failure, "\(destination) is not empty: an export is only written into a new or empty folder "
                                   + "(nothing was written; choose another --to, or empty that folder first)")
            }
        }
        let parent = Self.parent(of: destination)
        guard FileManager.default.fileExists(atPath: parent, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw CommandError(.failure, "the folder \(parent) does not exist: create it first, or choose another --to")
        }
        return destination
    }

    /// Makes the staging folder beside `destination` (already checked by `refusingNonEmpty`).
    init(destination: String) throws {
        self.destination = destination
        let parent = Self.parent(of: destination)
        Self.removeAbandoned(in: parent)
        staging = (parent == "/" ? "" : parent) + "/\(Self.stagingPrefix)\(getpid())-\(String(UInt64.random(in: .min ... .max), radix: 16))"
        guard mkdir(staging, 0o700) == 0 else { throw Self.failure("cannot create", staging) }
    }

    /// A folder inside the export (`relative` has no "..": the caller's own names).
    func makeFolder(_ relative: String) throws {
        let path = staging + "/" + relative
        guard mkdir(path, 0o700) == 0 else { throw Self.failure("cannot create", path) }
    }

    /// The path a file `relative` to the export is written at until the end.
    func path(_ relative: String) -> String { staging + "/" + relative }

    /// Writes a new file (0600) inside the export.
    func write(_ data: Data, to relative: String) throws {
        let path = path(relative)
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw Self.failure("cannot create", path) }
        defer { close(descriptor) }
        try data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) in
            var offset = 0
            while offset < raw.count {
                let written = Glibc.write(descriptor, raw.baseAddress! + offset, raw.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    throw Self.failure("cannot write", path)
                }
                offset += written
            }
        }
        guard fsync(descriptor) == 0 else { throw Self.failure("cannot write", path) }
    }

    /// The export takes its name.
    func commit() throws {
        guard rename(staging, destination) == 0 else {
            let reason = errno
            abandon()
            if reason == ENOTEMPTY || reason == EEXIST {
                throw CommandError(.failure, "\(destination) is no longer empty (something was written into it during the export): "
                                   + "nothing was exported; choose another --to")
            }
            throw CommandError(.failure, "cannot create \(destination): \(String(cString: strerror(reason)))")
        }
    }

    /// Removes everything written so far.
    func abandon() {
        try? FileManager.default.removeItem(atPath: staging)
    }

    private static func parent(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        let parent = String(path[..<slash])
        return parent.isEmpty ? "/" : parent
    }

    /// Staging folders of exports whose process is gone (killed mid-way): they hold plaintext.
    private static func removeAbandoned(in parent: String) {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: parent) else { return }
        for name in entries where name.hasPrefix(stagingPrefix) {
            let rest = name.dropFirst(stagingPrefix.count)
            guard let dash = rest.firstIndex(of: "-"), let pid = Int32(rest[..<dash]), pid > 0 else { continue }
            if kill(pid, 0) == 0 || errno != ESRCH { continue }
            try? FileManager.default.removeItem(atPath: (parent == "/" ? "" : parent) + "/" + name)
        }
    }

    private static func failure(_ what: String, _ path: String) -> CommandError {
        CommandError(.failure, "\(what) \(path): \(String(cString: strerror(errno)))")
    }
}
