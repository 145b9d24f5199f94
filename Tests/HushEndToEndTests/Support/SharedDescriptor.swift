import Foundation
import Glibc

/// A descriptor that several threads use, closed exactly once: by whichever
/// of its users lets go last.
///
/// The test process shares its descriptor numbers with NIO (the relay
/// clients and servers some suites run in-process), and a number is reused
/// the moment it is closed. A thread that closes a descriptor while another
/// may still `read`, `shutdown` or `close` it hands that late call someone
/// else's file: NIO then stops the whole process with "unacceptable errno 9
/// Bad file descriptor in read()" (issue 29, item 6). So the number stays
/// allocated until every user has called `release()`, and `shutDown()` wakes
/// users blocked on a socket without freeing it.
final class SharedDescriptor: @unchecked Sendable {
    let fd: Int32
    private let lock = NSLock()
    private var users: Int
    private var isShutDown = false

    /// `fd`, owned from now on by `users` users, each of which releases it once.
    init(_ fd: Int32, users: Int) {
        precondition(fd >= 0 && users > 0)
        self.fd = fd
        self.users = users
    }

    /// Shuts a socket down for reading and writing (once): blocked `accept`,
    /// `recv` and `send` calls return. The number stays allocated.
    func shutDown() {
        lock.withLock {
            guard !isShutDown, users > 0 else { return }
            isShutDown = true
            shutdown(fd, Int32(SHUT_RDWR))
        }
    }

    /// One user is done with it; the last one closes it.
    func release() {
        let last = lock.withLock { () -> Bool in
            precondition(users > 0, "descriptor \(fd) released more often than it has users")
            users -= 1
            return users == 0
        }
        if last { close(fd) }
    }
}
