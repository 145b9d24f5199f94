import Foundation

/// What a chat's header says about the contact and the relay: online while
/// heartbeats keep arriving, typing while their indicator keeps coming.
final class Presence: @unchecked Sendable {
    /// How long after the last sign of life a contact still counts as online
    /// (two heartbeats and some slack).
    static let onlineWindowMilliseconds: Int64 = 45_000
    /// How long "typing…" stays after the last indicator. A typing side
    /// repeats it every `ChatSession.typingIdleMilliseconds` while keys are
    /// pressed, so it clears shortly after they stop, even when the "stopped"
    /// indicator is lost (it is never stored or resent).
    static let typingWindowMilliseconds: Int64 = ChatSession.typingIdleMilliseconds + 2_000

    private let lock = NSLock()
    private let now: @Sendable () -> Int64
    private var lastSeen: Int64 = 0
    private var typingSince: Int64?
    private var online = false
    private var replaced = false

    /// `now` tells the time in milliseconds since 1970; tests pass a clock they move by hand.
    init(now: @escaping @Sendable () -> Int64 = Presence.wallClock) {
        self.now = now
    }

    /// The wall clock, in milliseconds since 1970.
    @Sendable static func wallClock() -> Int64 { Int64(Date().timeIntervalSince1970 * 1000) }

    /// Another home registered the account (§19.4): the relay is done with this one for good.
    var homeReplaced: Bool {
        get { lock.withLock { replaced } }
        set { lock.withLock { replaced = newValue } }
    }

    var relayOnline: Bool {
        get { lock.withLock { online } }
        set { lock.withLock { online = newValue } }
    }

    /// A sign of life: a heartbeat or message (`typing` false), or a typing
    /// indicator. Returns whether the contact had not counted as online before.
    @discardableResult
    func seen(typing active: Bool = false) -> Bool {
        let at = now()
        return lock.withLock {
            let arrived = at - lastSeen >= Presence.onlineWindowMilliseconds
            lastSeen = at
            typingSince = active ? at : nil
            return arrived
        }
    }

    func status(for contact: String) -> String {
        let at = now()
        return lock.withLock {
            // Not "reconnecting" for ever: a replaced home never will (a walkthrough saw that header).
            if replaced { return "this home was replaced by another: history only" }
            guard online else { return "relay offline, reconnecting" }
            let present = at - lastSeen < Presence.onlineWindowMilliseconds
            if let typingSince, at - typingSince < Presence.typingWindowMilliseconds { return "\(contact) is typing…" }
            return present ? "\(contact) is online" : ""
        }
    }
}
