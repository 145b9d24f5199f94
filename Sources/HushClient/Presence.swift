import Foundation

/// What a chat's status line says about the contact and the relay: online
/// while heartbeats keep arriving, typing while their indicator is on.
public final class Presence: @unchecked Sendable {
    /// How long after the last sign of life a contact still counts as online
    /// (two heartbeats and some slack).
    public static let onlineWindowMilliseconds: Int64 = 45_000

    private let lock = NSLock()
    private let now: @Sendable () -> Int64
    private var lastSeen: Int64 = 0
    private var typing = false
    private var online = false

    /// `now` in Unix milliseconds; tests pass a manual clock.
    public init(now: @escaping @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970 * 1000) }) {
        self.now = now
    }

    public var relayOnline: Bool {
        get { lock.withLock { online } }
        set { lock.withLock { online = newValue } }
    }

    public func seen(typing active: Bool = false) {
        let at = now()
        lock.withLock {
            lastSeen = at
            typing = active
        }
    }

    public func status(for contact: String) -> String {
        let at = now()
        return lock.withLock {
            guard online else { return "relay offline, reconnecting" }
            let present = at - lastSeen < Presence.onlineWindowMilliseconds
            if present && typing { return "\(contact) is typing…" }
            return present ? "\(contact) is online" : ""
        }
    }
}
