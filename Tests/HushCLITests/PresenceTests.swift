import HushTesting
import Testing
@testable import hush

@Suite struct PresenceTests {
    @Test func offlineRelayWinsOverEverything() {
        let presence = Presence(now: { 0 })
        presence.seen(typing: true)
        #expect(presence.status(for: "bob") == "relay offline, reconnecting")
    }

    /// A home another one replaced never reconnects: the header says so
    /// instead of "reconnecting" for good (a walkthrough's chat beside such
    /// a home's daemon).
    @Test func aReplacedHomeSaysSoWhateverTheRelayOrTheContact() {
        let presence = Presence(now: { 0 })
        presence.homeReplaced = true
        #expect(presence.status(for: "bob") == "this home was replaced by another: history only")
        presence.relayOnline = true
        presence.seen(typing: true)
        #expect(presence.status(for: "bob") == "this home was replaced by another: history only")
    }

    @Test func onlineWhileHeartbeatsArriveThenGone() {
        let clock = ManualClock(start: 1_000_000)
        let presence = Presence(now: { clock.now() })
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

@Suite struct PresenceTypingTests {
    @Test func typingClearsAfterAPauseWithoutAStopIndicator() {
        let clock = ManualClock(start: 1_000_000)
        let presence = Presence(now: { clock.now() })
        presence.relayOnline = true
        presence.seen(typing: true)
        clock.advance(milliseconds: Presence.typingWindowMilliseconds - 1)
        #expect(presence.status(for: "bob") == "bob is typing…")
        // The next repeat keeps it on; silence after it clears it.
        presence.seen(typing: true)
        clock.advance(milliseconds: Presence.typingWindowMilliseconds)
        #expect(presence.status(for: "bob") == "bob is online")
    }

    @Test func aMessageOrHeartbeatEndsTyping() {
        let presence = Presence(now: { 1_000_000 })
        presence.relayOnline = true
        presence.seen(typing: true)
        presence.seen()
        #expect(presence.status(for: "bob") == "bob is online")
    }
}

@Suite struct PresenceArrivalTests {
    @Test func seenSaysWhenTheContactArrivesNotWhileTheyStay() {
        let clock = ManualClock(start: 1_000_000)
        let presence = Presence(now: { clock.now() })
        #expect(presence.seen())
        clock.advance(milliseconds: 20_000)
        #expect(!presence.seen())
        clock.advance(milliseconds: Presence.onlineWindowMilliseconds)
        #expect(presence.seen(typing: true))
    }
}
