import Foundation
import HushSubprocess
import HushTesting
import Glibc

/// A pseudo-terminal pair for a child process: the test holds the master;
/// the child opens the slave by its path. The test keeps the slave open
/// too (O_NOCTTY), so the settings the child leaves on it can still be read
/// after the child ended; it closes it then, and the master reads EIO.
final class PseudoTerminal: @unchecked Sendable {
    /// Used by this object (keystrokes, resizes) and by the thread that
    /// drains it, which reads until EIO: closed when both are done, so a late
    /// keystroke never lands on a number the process reused.
    let master: SharedDescriptor
    let slavePath: String
    private let lock = NSLock()
    private var slave: Int32
    private var saved: termios?

    init(columns: Int, rows: Int) throws {
        let fd = posix_openpt(O_RDWR | O_NOCTTY)
        guard fd >= 0 else { throw HarnessError("cannot open a pseudo-terminal: \(String(cString: strerror(errno)))") }
        guard grantpt(fd) == 0, unlockpt(fd) == 0 else {
            let error = errno
            close(fd)
            throw HarnessError("cannot open a pseudo-terminal: \(String(cString: strerror(error)))")
        }
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        var name = [CChar](repeating: 0, count: 128)
        guard ptsname_r(fd, &name, name.count) == 0 else {
            let error = errno
            close(fd)
            throw HarnessError("ptsname: \(String(cString: strerror(error)))")
        }
        slavePath = String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        slave = open(slavePath, O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard slave >= 0 else {
            let error = errno
            close(fd)
            throw HarnessError("cannot open \(slavePath): \(String(cString: strerror(error)))")
        }
        master = SharedDescriptor(fd, users: 2)
        resize(columns: columns, rows: rows)
    }

    func resize(columns: Int, rows: Int) {
        var size = winsize(ws_row: UInt16(rows), ws_col: UInt16(columns), ws_xpixel: 0, ws_ypixel: 0)
        _ = ioctl(master.fd, UInt(TIOCSWINSZ), &size)
    }

    func write(_ bytes: [UInt8]) {
        Subprocess.writeAll(master.fd, bytes)
    }

    /// Records the slave's settings and lets go of it.
    func childExited() {
        lock.withLock {
            guard slave >= 0 else { return }
            var settings = termios()
            if tcgetattr(slave, &settings) == 0 { saved = settings }
            close(slave)
            slave = -1
        }
    }

    var settingsAtExit: termios? { lock.withLock { saved } }

    deinit {
        childExited()
        master.release()
    }
}

// glibc's pseudo-terminal calls, which the Glibc module does not export
// (they need _XOPEN_SOURCE or _GNU_SOURCE).
@_silgen_name("posix_openpt") private func posix_openpt(_ flags: Int32) -> Int32
@_silgen_name("grantpt") private func grantpt(_ fd: Int32) -> Int32
@_silgen_name("unlockpt") private func unlockpt(_ fd: Int32) -> Int32
@_silgen_name("ptsname_r") private func ptsname_r(_ fd: Int32, _ buffer: UnsafeMutablePointer<CChar>, _ length: Int) -> Int32
