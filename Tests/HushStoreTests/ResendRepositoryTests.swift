import HushCrypto
import HushStore
import Testing

/// The sender's count of resends after decryption errors (docs/PROTOCOL.md
/// §10.1): once per session of the peer, so a peer that restored its home
/// twice in a row is answered on its newest session, and a resend that
/// fails on the session it went out on earns nothing more.
@Suite struct ResendRepositoryTests {
    let first = [UInt8](repeating: 0x11, count: 32), second = [UInt8](repeating: 0x22, count: 32)

    @Test func aMessageIsResentOncePerSessionOfItsContact() throws {
        let fixture = try StoreFixture()
        let chat = try fixture.conversation("bo")
        let message = try fixture.incoming(chat, serverId: 1, body: "one", at: 1)
        let resends = fixture.store.resends
        #expect(try resends.markResent(messageId: message, onSession: first, at: 2))
        #expect(try !resends.markResent(messageId: message, onSession: first, at: 3), "the same session: no loop")
        #expect(try resends.markResent(messageId: message, onSession: second, at: 4), "a newer session asks: one more")
        #expect(try !resends.markResent(messageId: message, onSession: second, at: 5))
        #expect(try resends.resentClientMessageIds(conversationId: chat).count == 1, "listed once however often resent")
    }

    @Test func aContentGoesAgainOncePerSessionWhicheverOfItsEnvelopesIsNamed() throws {
        let fixture = try StoreFixture()
        let chat = try fixture.conversation("bo")
        let contact = try #require(try fixture.store.contacts.contact(conversationId: chat)?.id)
        let content: [UInt8] = [0x01, 0x02, 0x03]
        try fixture.store.resends.recordContent(digest: [0xE0], contactId: contact, content: content, editOf: nil, at: 1)
        let resends = fixture.store.resends
        #expect(try resends.takeContentToResend(forEnvelope: [0xE0], contactId: contact, onSession: first, at: 2) == content)
        // Its resend, sealed on the first session, carries the same content.
        try fixture.store.resends.recordContent(digest: [0xE1], contactId: contact, content: content, editOf: nil, at: 2)
        #expect(try resends.takeContentToResend(forEnvelope: [0xE1], contactId: contact, onSession: first, at: 3) == nil)
        #expect(try resends.takeContentToResend(forEnvelope: [0xE0], contactId: contact, onSession: first, at: 3) == nil)
        #expect(try resends.takeContentToResend(forEnvelope: [0xE1], contactId: contact, onSession: second, at: 4) == content)
        #expect(try resends.takeContentToResend(forEnvelope: [0xE1], contactId: contact + 1, onSession: [0x33], at: 4) == nil,
                "only to the contact it was sealed to")
        // Forgotten with the envelopes (the relay expired them).
        try resends.forgetEnvelopes(sealedBefore: 10)
        #expect(try resends.takeContentToResend(forEnvelope: [0xE1], contactId: contact, onSession: [0x44], at: 11) == nil)
    }

    @Test func aGroupContentGoesAgainOncePerMemberAndSession() throws {
        let fixture = try StoreFixture()
        let resends = fixture.store.resends
        #expect(try resends.markGroupContentResent(contentId: [0x0C], toMember: [0x01], onSession: first, at: 1))
        #expect(try !resends.markGroupContentResent(contentId: [0x0C], toMember: [0x01], onSession: first, at: 2))
        #expect(try resends.markGroupContentResent(contentId: [0x0C], toMember: [0x02], onSession: first, at: 2))
        #expect(try resends.markGroupContentResent(contentId: [0x0C], toMember: [0x01], onSession: second, at: 3))
    }
}
