import HushClient
import HushTesting
import Testing

@Suite struct PresenceTests {
    @Test func offlineRelayWinsOverEverything() {
        let presence = Presence(clock: ManualClock(start: 0))
        presence.seen(typing: true)
        #expect(presence.status(for: "bob") == "relay offline, reconnecting")
    }

    @Test func onlineWhileHeartbeatsArriveThenGone() {
        let clock = ManualClock(start: 1_000_000)
        let presence = Presence(clock: clock)
        presence.relayOnline = true
        #expect(presence.status(for: "bob") == "")
        presence.seen()
        #expect(presence.status(for: "bob") == "bob is online")
        presence.seen(typing: true)
        #expect(presence.status(for: "bob") == "bob is typing…")
        clock.advance(milliseconds: Presence.onlineWindowMilliseconds)
        #expect(presence.status(for: "bob") == "")
    }
}
