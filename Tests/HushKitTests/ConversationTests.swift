import Foundation
import HushKit
import Testing

/// Two accounts on a real relay process, through HushKit's public API only.
@Suite struct HushKitConversationTests {
    @Test func twoAccountsWriteReadAndVerifyEachOther() async throws {
        let relay = try RelayProcess()
        let alice = try await App.account("alice", relay: relay), bob = try await App.account("bob", relay: relay)
        defer { alice.close(); bob.close() }
        #expect(try await alice.isRegistered())
        #expect(try await alice.relayRegistration() == .registered)
        let (bobForAlice, aliceForBob) = try await App.introduce(alice, bob, as: ("alice", "bob"))
        #expect(try await alice.contact(bobForAlice).name == "bob")
        #expect(try await alice.contact(bobForAlice).createdAt > 0)
        #expect(try await alice.contacts().map(\.address) == [bob.address])

        let aliceEvents = alice.events(), bobEvents = bob.events()
        let room = try await alice.room(with: bobForAlice)
        #expect(try await room.contact() == bobForAlice)
        #expect(try await room.group() == nil)
        let sent = try await room.send("hello bob")
        #expect(sent.status == .sent)
        #expect(sent.direction == .outgoing && sent.kind == .text && sent.senderAddress == alice.address)

        #expect(try await App.sync(bob) { try await bob.conversations().first?.unreadCount == 1 })
        let received = await App.event(in: bobEvents) { if case .messageReceived = $0 { true } else { false } }
        guard case let .messageReceived(messageID, conversationID) = received else {
            Issue.record("bob was told of no message: \(String(describing: received))")
            return
        }
        let message = try #require(try await bob.message(messageID))
        #expect(message.text == "hello bob" && message.direction == .incoming && message.senderAddress == alice.address)
        // The same message on both sides: one client message id, the sender's clock, the relay's.
        #expect(message.clientMessageID == sent.clientMessageID && !message.clientMessageID.isEmpty)
        #expect(message.createdAt == sent.createdAt && message.relayTimestamp != nil && message.readAt == nil)
        #expect(message.serverID != nil, "the relay's id arrives with the envelope")
        #expect(try await bob.name(of: alice.address) == "alice")
        #expect(try await bob.name(of: bob.address) == "you")
        let bobRoom = try await bob.room(conversationID)
        #expect(try await bobRoom.contact() == aliceForBob)
        #expect(try await bobRoom.resentMessages().isEmpty)
        #expect(try await bobRoom.summary().title == "alice")
        let page = try await bobRoom.history()
        #expect(page.messages.map(\.id) == [messageID] && !page.hasOlder)
        try await bobRoom.markRead(upTo: messageID)
        let listed = try #require(try await bob.conversations().first)
        #expect(listed.unreadCount == 0 && !listed.isGroup && listed.lastActivityAt != nil)
        #expect(try await bob.message(messageID)?.readAt != nil)

        // The read receipt reaches alice as an event naming her message.
        #expect(try await App.sync(alice) { try await alice.message(sent.id)?.status == .read })
        let readByBob = try #require(try await alice.message(sent.id))
        #expect(readByBob.deliveredAt != nil && readByBob.readAt != nil)
        let read = await App.event(in: aliceEvents) { if case .statusChanged(sent.id, _, .read) = $0 { true } else { false } }
        #expect(read != nil)

        // Pages: newest first page, then the one before it.
        for text in ["two", "three", "four"] { _ = try await bobRoom.send(text) }
        let newest = try await bobRoom.history(limit: 2)
        #expect(newest.messages.map(\.text) == ["three", "four"] && newest.hasOlder)
        let older = try await bobRoom.history(before: newest.messages.first?.id, limit: 2)
        #expect(older.messages.map(\.text) == ["hello bob", "two"] && !older.hasOlder)
        #expect(try await bobRoom.messages(after: messageID, limit: 10).map(\.text) == ["two", "three", "four"])
        let found = try await bob.search("three")
        #expect(found.map(\.message.text) == ["three"] && found.first?.snippet.contains("[three]") == true)

        // Read marks up to what the user saw: what came after stays unread.
        _ = try await room.send("later one")
        _ = try await room.send("later two")
        #expect(try await App.sync(bob) { try await bob.conversations().first?.unreadCount == 2 })
        let later = try await bobRoom.history(limit: 2).messages
        #expect(later.map(\.text) == ["later one", "later two"])
        try await bobRoom.markRead(upTo: later[0].id)
        #expect(try await bob.conversations().first?.unreadCount == 1)
        try await bobRoom.markRead()
        #expect(try await bob.conversations().first?.unreadCount == 0)

        // Safety numbers: the same on both sides; digits or a scanned code verify.
        let aliceNumber = try await alice.safetyNumber(with: bobForAlice)
        let bobNumber = try await bob.safetyNumber(with: aliceForBob)
        #expect(aliceNumber.digits == bobNumber.digits && aliceNumber.digits.count == 60)
        #expect(aliceNumber.groups.count == 12 && aliceNumber.groups.joined() == aliceNumber.digits)
        #expect(try await alice.compareSafetyNumber(with: bobForAlice, code: String(repeating: "1", count: 60)) == false)
        #expect(try await alice.contact(bobForAlice).verification == .unverified)
        #expect(try await alice.compareSafetyNumber(with: bobForAlice, code: aliceNumber.groups.joined(separator: " ")))
        #expect(try await alice.contact(bobForAlice).verification == .verified)
        #expect(try await bob.compareSafetyNumber(with: aliceForBob, code: App.hex(aliceNumber.scannableCode)))
        #expect(await App.errorKind { _ = try await alice.compareSafetyNumber(with: bobForAlice, code: "12345") } == .invalidInput)
        #expect(await App.errorKind { try await alice.acceptIdentityChange(of: bobForAlice) } == .invalidContact)
        #expect(await App.error { try await alice.acceptIdentityChange(of: bobForAlice) }?.subject == .contact("bob"))

        // Ids that name nothing.
        #expect(await App.errorKind { _ = try await alice.room(ConversationID(rawValue: 999_999)) } == .notFound)
        #expect(await App.errorKind { _ = try await alice.contact(ContactID(rawValue: 999_999)) } == .notFound)
        #expect(await App.errorKind { _ = try await alice.attachment(AttachmentID(rawValue: 999_999)) } == .notFound)
        #expect(try await alice.message(MessageID(rawValue: 999_999)) == nil)

        try await alice.removeContact(bobForAlice)
        #expect(try await alice.contacts().isEmpty)
        #expect(await App.errorKind { _ = try await room.send("gone") } == .notFound)
    }

    @Test func whatTheRelayCannotTakeWaitsInTheQueueUntilRetried() async throws {
        let relay = try RelayProcess()
        let alice = try await App.account("alice", relay: relay), bob = try await App.account("bob", relay: relay)
        let (bobForAlice, _) = try await App.introduce(alice, bob, as: ("alice", "bob"))
        alice.close()
        defer { bob.close() }
        // The same account, pointed at a port where no relay listens.
        let offline = try await HushAccount.open(in: alice.directory, keys: App.keys, relayURL: "http://127.0.0.1:1")
        let report = try await offline.room(with: bobForAlice).sendReportingDelivery("queued while offline")
        let message = report.message
        #expect(message.status == .pending)
        // Not reached is not refused; the reason is the queue's.
        #expect(!report.refusedByRelay && report.reason?.isEmpty == false, "\(report)")
        // The message, and the delivery credential sealed to bob before it (a first message carries it).
        let queued = try await offline.queuedMessages()
        let entry = try #require(queued.first { $0.message == message.id }, "\(queued)")
        #expect(entry.state == .pending && entry.conversation == message.conversation)
        // Held behind the credential queued before it (same mailbox), it was not posted: it carries
        // that one's reason and counts no attempt of its own (messages keep their order).
        #expect(entry.lastError != nil && entry.nextAttemptAt > 0, "\(entry)")
        #expect(queued.contains { $0.failedAttempts >= 1 }, "\(queued)")
        #expect(queued.allSatisfy { $0.state == .pending })
        #expect(entry.requestID.count >= 16 && entry.size > 0, "\(entry)")
        let again = try await offline.retryQueued()
        #expect(again.sent == 0 && again.retrying >= 1 && again.failed == 0, "\(again)")
        #expect(again.refused.isEmpty && again.nextAttemptAt != nil)
        // A retry seals a text again, under a new request id: ask the queue for the current one.
        let current = try #require(try await offline.queuedMessages().first { $0.message == message.id })
        let one = try await offline.retryQueued(requestID: String(current.requestID.prefix(8)))
        // (Another queued message may have come due meanwhile: how many were tried is not pinned.)
        #expect(one.retrying >= 1 && one.sent == 0, "\(one)")
        let unknown = await App.error { _ = try await offline.retryQueued(requestID: "no-such-request") }
        #expect(unknown?.kind == .notFound && unknown?.subject == .queuedMessage("no-such-request"), "\(String(describing: unknown))")
        // Not due yet: the backoff holds it back.
        #expect(await offline.sendQueued().sent == 0)
        offline.close()

        let online = try await HushAccount.open(in: alice.directory, keys: App.keys, relayURL: relay.url)
        defer { online.close() }
        let attempt = try await online.retryQueued()
        #expect(attempt.sent == queued.count && attempt.retrying == 0 && attempt.failed == 0)
        #expect(try await online.queuedMessages().isEmpty)
        #expect(try await online.message(message.id)?.status == .sent)
        let usage = try await online.storageUsage()
        #expect(usage.map(\.title) == ["bob"] && usage.first?.messageCount == 1 && (usage.first?.bytes ?? 0) > 0)
        #expect(try await online.attachments().isEmpty)
        #expect(await online.autoDownloadLimit() == nil)
        try await online.setAutoDownload(maxBytes: 1 << 20)
        #expect(await online.autoDownloadLimit() == 1 << 20)
        let idle = await online.sendQueued()
        #expect(idle.sent == 0 && idle.retrying == 0 && idle.nextAttemptAt == nil, "nothing left to send: \(idle)")
    }

    @Test func liveDeliveryAndTypingArriveAsEvents() async throws {
        let relay = try RelayProcess()
        let alice = try await App.account("alice", relay: relay), bob = try await App.account("bob", relay: relay)
        defer { alice.close(); bob.close() }
        let (bobForAlice, aliceForBob) = try await App.introduce(alice, bob, as: ("alice", "bob"))
        // A first exchange, so that both hold each other's delivery credential.
        _ = try await alice.room(with: bobForAlice).send("first")
        #expect(try await App.sync(bob) { try await bob.conversations().count == 1 })
        _ = try await bob.room(with: aliceForBob).send("answer")
        #expect(try await App.sync(alice) { try await alice.conversations().first?.lastMessage?.text == "answer" })

        let aliceEvents = alice.events(), bobEvents = bob.events()
        #expect(!bob.isConnected)
        bob.startLive()
        alice.startLive()
        #expect(await App.event(in: bobEvents) { $0 == .connectionChanged(online: true) } != nil)
        #expect(await App.event(in: aliceEvents) { $0 == .connectionChanged(online: true) } != nil)
        // A client that subscribes now, after the event, reads the state instead.
        #expect(bob.isConnected && alice.isConnected)

        let sent = try await alice.room(with: bobForAlice).send("while bob is live")
        let pushed = await App.event(in: bobEvents) { if case .messageReceived = $0 { true } else { false } }
        guard case let .messageReceived(id, _) = pushed else {
            Issue.record("no live message for bob")
            return
        }
        #expect(try await bob.message(id)?.text == "while bob is live")
        #expect(sent.status == .sent)

        try await alice.room(with: bobForAlice).setTyping(true)
        #expect(await App.event(in: bobEvents) { $0 == .typing(aliceForBob, isTyping: true) } != nil)
        bob.stopLive()
        alice.stopLive()
    }
}
