import HushKit
import Testing
@testable import hush

@Suite struct EventNotificationTests {
    @Test func byDefaultOnlyTheContactIsNamed() {
        let notification = EventNotification(messageFrom: "alice", text: "the secret plan", isRequest: false, includeText: false)
        #expect(notification.summary == "Hush: message from alice")
        #expect(!notification.summary.contains("secret") && !notification.body.contains("secret"))
        let request = EventNotification(messageFrom: "unknown-1", text: "the secret plan", isRequest: true, includeText: false)
        #expect(request.summary == "Hush: message request from unknown-1" && !request.body.contains("secret"))
    }

    @Test func theTextOnlyWhenAskedAndDefused() {
        let notification = EventNotification(messageFrom: "alice", text: "<b>hi</b>\n\u{1B}[2Jthere", isRequest: false, includeText: true)
        #expect(notification.body == "‹b›hi‹/b› \u{FFFD}[2Jthere")
        let long = EventNotification(messageFrom: "a", text: String(repeating: "a", count: 500), isRequest: false, includeText: true)
        #expect(long.body.count == EventNotification.maximumBodyCharacters)
    }

    @Test func statusChangesAndTypingDoNotNotify() {
        #expect(EventNotification(.typing(contact: ContactID(rawValue: 1), name: "a", active: true), includeText: true) == nil)
        #expect(EventNotification(.undecryptable(reason: "r", senderAsked: false), includeText: true) == nil)
        #expect(EventNotification(.connection(online: true), includeText: true) == nil)
    }
}

/// `hush listen`'s lines: a message this account sent from another device
/// (a sent transcript) is said to be ours, not the contact's. Before, the
/// desk's listener printed the laptop's message to bob as "bob: …".
@Suite struct ListenLineTests {
    @Test func aMessageFromAnotherDeviceOfOursIsSaidToBeOurs() {
        let incoming: [String: Any] = ["event": "message", "direction": "in", "contact": "bob", "body": "hi"]
        #expect(ListenCommand.text(incoming) == "bob: hi")
        let ours: [String: Any] = ["event": "message", "direction": "out", "contact": "bob", "body": "from the laptop"]
        #expect(ListenCommand.text(ours) == "you to bob, from another device: from the laptop")
        #expect(ListenCommand.text(ours, bodies: false) == "message you sent to bob from another device")
        let group: [String: Any] = ["event": "message", "direction": "out", "contact": "alice", "group": "team", "body": "all"]
        #expect(ListenCommand.text(group) == "you in team, from another device: all")
        let file: [String: Any] = ["event": "file", "attachment": 3, "direction": "out", "contact": "bob", "fileName": "a.txt",
                                   "state": "failed", "error": "gone"]
        #expect(ListenCommand.text(file) == "file 3 “a.txt” you sent to bob from another device could not be downloaded: gone")
    }

    /// Something set aside whose sender was asked to send it again (crossed
    /// first messages with a linked device) is not reported as a loss.
    @Test func aSetAsideEnvelopeWhoseSenderWasAskedSaysTheMessageFollows() {
        let asked: [String: Any] = ["event": "quarantined", "reason": "crossed first messages", "senderAsked": true]
        #expect(ListenCommand.text(asked)
            == "a message could not be opened yet (crossed first messages); its sender was asked to send it again, so it should follow")
        let lost: [String: Any] = ["event": "quarantined", "reason": "forged", "senderAsked": false]
        #expect(ListenCommand.text(lost) == "set aside an envelope: forged")
    }
}

@Suite struct TypingLineTests {
    /// A chat's heartbeat ("typing stopped" every 20 s) prints nothing; a
    /// start prints once, and the stop after it once.
    @Test func onlyAStopAfterAStartIsPrinted() {
        var lines = TypingLines()
        func typing(_ active: Bool) -> [String: Any] { ["event": "typing", "contact": "bob", "active": active] }
        let shown = [typing(false), typing(true), typing(true), typing(false), typing(false),
                     ["event": "message", "contact": "bob", "body": "hi"]].map { lines.shows($0) }
        // A heartbeat; a start; still typing (said already); the stop after it; a heartbeat; a message.
        #expect(shown == [false, true, false, true, false, true])
    }
}
