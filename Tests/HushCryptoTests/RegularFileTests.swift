import Foundation
import Glibc
import HushCrypto
import Testing

/// `RegularFile.openForReading`: a regular file is opened (blocking reads,
/// as before); a named pipe, a directory or a device is refused at once,
/// with nothing left open.
@Suite struct RegularFileTests {
    static func folder() throws -> String {
        let path = NSTemporaryDirectory() + "/regular-file-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// Descriptors this process has open on one of `paths` (to see that a
    /// refusal leaves none behind). Counting every descriptor would not do:
    /// the other suites run in parallel in this process and open their own.
    static func descriptorsOpen(on paths: Set<String>) -> Int {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return entries.filter { entry in
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + entry) else { return false }
            return paths.contains(target)
        }.count
    }

    @Test func aRegularFileOpensForBlockingReads() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try Data("contents".utf8).write(to: URL(fileURLWithPath: folder + "/file"))
        // Through a symbolic link too: what it points at is what is checked.
        try FileManager.default.createSymbolicLink(atPath: folder + "/link", withDestinationPath: folder + "/file")
        for path in [folder + "/file", folder + "/link"] {
            let descriptor = try RegularFile.openForReading(path)
            defer { close(descriptor) }
            #expect(fcntl(descriptor, F_GETFL) & O_NONBLOCK == 0)
            #expect(fcntl(descriptor, F_GETFD) & FD_CLOEXEC != 0)
            var buffer = [UInt8](repeating: 0, count: 16)
            #expect(read(descriptor, &buffer, 16) == 8)
        }
    }

    @Test func aPipeADirectoryAndADeviceAreRefusedUnread() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try #require(mkfifo(folder + "/pipe", 0o600) == 0)
        try FileManager.default.createSymbolicLink(atPath: folder + "/link", withDestinationPath: folder + "/pipe")
        // /dev/full rather than /dev/null: nothing else in this process opens it,
        // so a descriptor left open on it can only be the one under test.
        let device = FileManager.default.fileExists(atPath: "/dev/full") ? "/dev/full" : "/dev/null"
        let resolved = URL(fileURLWithPath: folder).resolvingSymlinksInPath().path
        let watched: Set<String> = [resolved + "/pipe", resolved, device]
        let before = Self.descriptorsOpen(on: watched)
        let cases = [(folder + "/pipe", "a named pipe (FIFO)"), (folder + "/link", "a named pipe (FIFO)"),
                     (folder, "a directory"), (device, "a character device")]
        for (path, kind) in cases {
            #expect {
                _ = try RegularFile.openForReading(path)
            } throws: { error in
                guard let error = error as? RegularFileError else { return false }
                return error.reason == .notRegularFile(kind: kind)
                    && error.description == "\(path) is \(kind), not a regular file: give the path of a regular file"
                    + " (to use what a pipe or device carries, save it to a file first)"
            }
        }
        #expect(Self.descriptorsOpen(on: watched) == before)
    }

    @Test func aMissingFileSaysSo() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        #expect {
            _ = try RegularFile.openForReading(folder + "/none")
        } throws: { error in
            guard let error = error as? RegularFileError else { return false }
            return error.isMissing && error.suggestion == nil && error.description == "cannot open \(folder)/none: No such file or directory"
        }
    }
}
