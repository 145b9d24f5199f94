import Foundation
import Glibc

/// A pseudo-terminal pair for a child process: the test holds the master;
/// the child opens the slave by its path. The test keeps the slave open
/// too (O_NOCTTY), so the settings the child leaves on it can still be read
/// after the child ended; it closes it then, and the master reads EIO.
final class PseudoTerminal: @unchecked Sendable {
    let master: Int32
    let slavePath: String
    private let lock = NSLock()
    private var slave: Int32
    private var saved: termios?

    init(columns: Int, rows: Int) throws {
        master = posix_openpt(O_RDWR | O_NOCTTY)
        guard master >= 0, grantpt(master) == 0, unlockpt(master) == 0 else {
            throw HarnessError("cannot open a pseudo-terminal: \(String(cString: strerror(errno)))")
        }
        _ = fcntl(master, F_SETFD, FD_CLOEXEC)
        var name = [CChar](repeating: 0, count: 128)
        guard ptsname_r(master, &name, name.count) == 0 else { throw HarnessError("ptsname: \(String(cString: strerror(errno)))") }
        slavePath = String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        slave = open(slavePath, O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard slave >= 0 else { throw HarnessError("cannot open \(slavePath): \(String(cString: strerror(errno)))") }
        resize(columns: columns, rows: rows)
    }

    func resize(columns: Int, rows: Int) {
        var size = winsize(ws_row: UInt16(rows), ws_col: UInt16(columns), ws_xpixel: 0, ws_ypixel: 0)
        _ = ioctl(master, UInt(TIOCSWINSZ), &size)
    }

    func write(_ bytes: [UInt8]) {
        ChildProcess.writeAll(master, bytes)
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

    deinit { childExited() }
}

// glibc's pseudo-terminal calls, which the Glibc module does not export
// (they need _XOPEN_SOURCE or _GNU_SOURCE).
@_silgen_name("posix_openpt") private func posix_openpt(_ flags: Int32) -> Int32
@_silgen_name("grantpt") private func grantpt(_ fd: Int32) -> Int32
@_silgen_name("unlockpt") private func unlockpt(_ fd: Int32) -> Int32
@_silgen_name("ptsname_r") private func ptsname_r(_ fd: Int32, _ buffer: UnsafeMutablePointer<CChar>, _ length: Int) -> Int32
