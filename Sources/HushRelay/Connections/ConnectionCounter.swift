import NIOCore
import Synchronization

/// Counts open connections per client address and in total, and admits a new
/// one only within `ConnectionLimits`.
final class ConnectionCounter: Sendable {
    private struct Counts {
        var total = 0
        var perAddress: [String: Int] = [:]
    }

    private let counts = Mutex(Counts())
    let limits: ConnectionLimits

    init(limits: ConnectionLimits) { self.limits = limits }

    /// Takes a place for a connection from `address`; false when a limit is reached.
    func admit(_ address: String) -> Bool {
        counts.withLock { counts in
            guard counts.total < limits.maxConnections, counts.perAddress[address, default: 0] < limits.maxConnectionsPerAddress else {
                return false
            }
            counts.total += 1
            counts.perAddress[address, default: 0] += 1
            return true
        }
    }

    /// Gives back the place of a closed connection.
    func release(_ address: String) {
        counts.withLock { counts in
            counts.total -= 1
            let left = counts.perAddress[address, default: 1] - 1
            counts.perAddress[address] = left > 0 ? left : nil
        }
    }

    var open: Int { counts.withLock { $0.total } }
}
