import Foundation
import HushCrypto

/// What a chat's status line says about the contact and the relay: online
/// while heartbeats keep arriving, typing while their indicator is on.
public final class Presence: @unchecked Sendable {
    /// How long after the last sign of life a contact still counts as online
    /// (two heartbeats and some slack).
    public static let onlineWindowMilliseconds: Int64 = 45_000

    private let lock = NSLock()
    private let clock: any TimeSource
    private var lastSeen: Int64 = 0
    private var typing = false
    private var online = false

    /// Tests pass HushTesting's `ManualClock`.
    public init(clock: any TimeSource = SystemClock()) {
        self.clock = clock
    }

    public var relayOnline: Bool {
        get { lock.withLock { online } }
        set { lock.withLock { online = newValue } }
    }

    public func seen(typing active: Bool = false) {
        let at = clock.now()
        lock.withLock {
            lastSeen = at
            typing = active
        }
    }

    public func status(for contact: String) -> String {
        let at = clock.now()
        return lock.withLock {
            guard online else { return "relay offline, reconnecting" }
            let present = at - lastSeen < Presence.onlineWindowMilliseconds
            if present && typing { return "\(contact) is typing…" }
            return present ? "\(contact) is online" : ""
        }
    }
}
