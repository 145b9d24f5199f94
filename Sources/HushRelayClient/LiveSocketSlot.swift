import Synchronization

/// The live socket `connect` opened, shared by every copy of the transport.
/// Ephemeral envelopes (typing) go over it instead of a connection of their
/// own: the relay keeps a few sockets per identity and closes the oldest
/// when one more opens, and the oldest is usually the live one.
final class LiveSocketSlot: Sendable {
    private let current = Mutex<RelaySocket?>(nil)

    var socket: RelaySocket? { current.withLock { $0 } }

    func hold(_ socket: RelaySocket) {
        current.withLock { $0 = socket }
    }

    /// Forgets `socket` if it is still the one held (a newer one stays).
    func release(_ socket: RelaySocket) {
        current.withLock { if $0 === socket { $0 = nil } }
    }
}
