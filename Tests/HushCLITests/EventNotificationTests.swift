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
        #expect(EventNotification(.undecryptable(reason: "r"), includeText: true) == nil)
        #expect(EventNotification(.connection(online: true), includeText: true) == nil)
    }
}
