import HushClient
import Synchronization
import Testing

/// A clock the test moves by hand, in Unix milliseconds.
private final class ManualMilliseconds: Sendable {
    private let value = Mutex<Int64>(1_000_000)
    var now: Int64 { value.withLock { $0 } }
    func advance(by milliseconds: Int64) { value.withLock { $0 += milliseconds } }
}

@Suite struct PresenceTests {
    @Test func offlineRelayWinsOverEverything() {
        let presence = Presence(now: { 0 })
        presence.seen(typing: true)
        #expect(presence.status(for: "bob") == "relay offline, reconnecting")
    }

    @Test func onlineWhileHeartbeatsArriveThenGone() {
        let clock = ManualMilliseconds()
        let presence = Presence(now: { clock.now })
        presence.relayOnline = true
        #expect(presence.status(for: "bob") == "")
        presence.seen()
        #expect(presence.status(for: "bob") == "bob is online")
        presence.seen(typing: true)
        #expect(presence.status(for: "bob") == "bob is typing…")
        clock.advance(by: Presence.onlineWindowMilliseconds)
        #expect(presence.status(for: "bob") == "")
    }
}
