import Foundation
import HushCrypto

/// What a chat's header says about the contact and the relay: online while
/// heartbeats keep arriving, typing while their indicator keeps coming.
public final class Presence: @unchecked Sendable {
    /// How long after the last sign of life a contact still counts as online
    /// (two heartbeats and some slack).
    public static let onlineWindowMilliseconds: Int64 = 45_000
    /// How long "typing…" stays after the last indicator. A typing side
    /// repeats it every `ChatSession.typingIdleMilliseconds` while keys are
    /// pressed, so it clears shortly after they stop, even when the "stopped"
    /// indicator is lost (it is never stored or resent).
    public static let typingWindowMilliseconds: Int64 = ChatSession.typingIdleMilliseconds + 2_000

    private let lock = NSLock()
    private let clock: any TimeSource
    private var lastSeen: Int64 = 0
    private var typingSince: Int64?
    private var online = false

    /// Tests pass HushTesting's `ManualClock`.
    public init(clock: any TimeSource = SystemClock()) {
        self.clock = clock
    }

    public var relayOnline: Bool {
        get { lock.withLock { online } }
        set { lock.withLock { online = newValue } }
    }

    /// A sign of life: a heartbeat or message (`typing` false), or a typing
    /// indicator. Returns whether the contact had not counted as online before.
    @discardableResult
    public func seen(typing active: Bool = false) -> Bool {
        let at = clock.now()
        return lock.withLock {
            let arrived = at - lastSeen >= Presence.onlineWindowMilliseconds
            lastSeen = at
            typingSince = active ? at : nil
            return arrived
        }
    }

    public func status(for contact: String) -> String {
        let at = clock.now()
        return lock.withLock {
            guard online else { return "relay offline, reconnecting" }
            let present = at - lastSeen < Presence.onlineWindowMilliseconds
            if let typingSince, at - typingSince < Presence.typingWindowMilliseconds { return "\(contact) is typing…" }
            return present ? "\(contact) is online" : ""
        }
    }
}
