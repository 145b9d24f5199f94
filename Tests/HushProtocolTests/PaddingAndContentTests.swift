import HushCrypto
@testable import HushProtocol
import HushTesting
import Testing

@Suite struct PaddingTests {
    @Test(arguments: [(0, 256), (255, 256), (256, 272), (1024, 1088), (65_536, 67_584)])
    func buckets(content: Int, padded: Int) throws {
        #expect(Padding.paddedLength(forContentLength: content) == padded)
        let bytes = [UInt8](repeating: 0xAB, count: content)
        let out = try Padding.pad(bytes)
        #expect(out.count == padded)
        #expect(try Padding.unpad(out) == bytes)
    }

    @Test func padmeOverheadIsBounded() {
        for length in stride(from: 256, through: 70_000, by: 97) {
            let padded = Padding.padme(length)
            #expect(padded >= length && Double(padded - length) <= 0.12 * Double(length))
        }
    }

    @Test func strictUnpadding() throws {
        let good = try Padding.pad(Array("hi".utf8))
        var noMarker = good; noMarker[2] = 0x00
        #expect(throws: ProtocolError.self) { try Padding.unpad(noMarker) }
        var junk = good; junk[good.count - 1] = 0x01
        #expect(throws: ProtocolError.self) { try Padding.unpad(junk) }
        // Well-formed marker but a bucket that is not the content's.
        #expect(throws: ProtocolError.self) { try Padding.unpad(good + [UInt8](repeating: 0, count: 8)) }
        #expect(throws: ProtocolError.self) { try Padding.unpad(Array(good.dropLast())) }
        #expect(throws: ProtocolError.limitExceeded(what: "message content")) { try Padding.pad([UInt8](repeating: 0, count: Padding.maximumContentLength + 1)) }
    }
}

@Suite struct ContentTests {
    let random = DeterministicRandom(seed: "content")

    func roundTrip(_ body: ContentBody) throws {
        let content = Content(id: MessageID.random(using: random), sentAt: 1_700_000_000_123, body: body)
        #expect(try Content(decoding: content.encoded()) == content)
    }

    @Test func everyTypeRoundTrips() throws {
        let ids = (0..<3).map { _ in MessageID.random(using: random) }
        try roundTrip(.text("héllo 👋"))
        try roundTrip(.deliveryReceipt(ids))
        try roundTrip(.readReceipt([ids[0]]))
        try roundTrip(.typingStarted)
        try roundTrip(.typingStopped)
        try roundTrip(.attachment(try AttachmentPointer(key: SecureBytes(copying: random.bytes(32)), digest: random.bytes(32),
                                                        size: 123_456, blobID: Array("blob-1".utf8), fileName: "photo.jpg",
                                                        mediaType: "image/jpeg")))
        try roundTrip(.deliveryCredential(random.bytes(32)))
        try roundTrip(.profile(displayName: "Alice"))
        try roundTrip(.reply(to: MessageID.random(using: random), text: "quoted"))
        try roundTrip(.reaction(to: MessageID.random(using: random), emoji: "👍🏽"))
        try roundTrip(.reaction(to: MessageID.random(using: random), emoji: nil))
        try roundTrip(.edit(of: MessageID.random(using: random), text: "new text"))
        try roundTrip(.deletion(of: MessageID.random(using: random)))
        try roundTrip(.disappearingTimer(seconds: 86_400))
        try roundTrip(.disappearingTimer(seconds: 0))
        try roundTrip(.expiring(after: 3_600, .text("gone soon")))
        try roundTrip(.expiring(after: 1, .reply(to: MessageID.random(using: random), text: "me too")))
    }

    /// Linked devices' contents (docs/PROTOCOL.md §20.11): a device list goes
    /// as signed bytes within a list's bounds; a sent transcript carries one
    /// content a device sends a contact, never another transcript, a device
    /// list or anything a contact alone receives; the sender cannot make one.
    @Test func deviceListsAndTranscriptsCarryOnlyWhatTheyMay() throws {
        let account = IdentityKeyPair.generate(using: random), bob = IdentityKeyPair.generate(using: random).publicKey
        let phone = Ed25519.PrivateKey(using: random)
        let list = try DeviceList.sign(account: account, counter: 1, createdAt: 1, signer: phone,
                                       entries: [try DeviceListEntry.linking(phone, to: account.publicKey, name: "phone", addedAt: 1)])
        try roundTrip(.deviceList(list.encoded))
        let sent = Content(id: MessageID.random(using: random), sentAt: 1_700_000_000_000, body: .text("from my laptop"))
        try roundTrip(.sentTranscript(recipient: bob, sent))
        try roundTrip(.sentTranscript(recipient: bob, Content(id: sent.id, sentAt: 1, body: .expiring(after: 60, .text("soon")))))
        try roundTrip(.sentTranscript(recipient: bob, Content(id: sent.id, sentAt: 1, body: .readReceipt([sent.id]))))
        let transcript = Content(id: MessageID.random(using: random), sentAt: 1, body: .sentTranscript(recipient: bob, sent))
        for inner: ContentBody in [transcript.body, .deviceList(list.encoded), .typingStarted, .deliveryCredential(random.bytes(32)),
                                   .decryptionError(envelopeDigest: random.bytes(32)), .deliveryReceipt([sent.id])] {
            let wrapped = Content(id: sent.id, sentAt: 1, body: .sentTranscript(recipient: bob, Content(id: sent.id, sentAt: 1, body: inner)))
            #expect(throws: ProtocolError.self) { try wrapped.encoded() }
        }
        #expect(throws: ProtocolError.self) { try Content(id: sent.id, sentAt: 1, body: .deviceList(Array(list.encoded.prefix(193)))).encoded() }
        // Written by hand: the receiver refuses a transcript of a transcript.
        let nested = try transcript.encoded()
        let outer = Array(nested.prefix(26)) + bob.rawRepresentation + nested
        #expect(throws: ProtocolError.self) { try Content(decoding: outer) }
        #expect(try Content(decoding: try transcript.encoded()) == transcript)
    }

    /// The sender's peek at an encoded edit (for its resend records) names the
    /// same message a full decoding does, and nothing for any other content:
    /// a reply and a reaction carry a message id at the same place.
    @Test func theEditedMessageIsReadWithoutDecoding() throws {
        let target = MessageID.random(using: random)
        let bodies: [ContentBody] = [.edit(of: target, text: "new text"), .reply(to: target, text: "quoted"),
                                     .reaction(to: target, emoji: "👍"), .deletion(of: target), .text("plain"),
                                     .expiring(after: 60, .reply(to: target, text: "soon"))]
        for body in bodies {
            let encoded = try Content(id: MessageID.random(using: random), sentAt: 1_700_000_000_123, body: body).encoded()
            let decoded = try Content(decoding: encoded)
            var expected: [UInt8]?
            if case let .edit(of: edited, _) = decoded.body { expected = edited.bytes }
            #expect(Content.editedMessageID(inEncoded: encoded) == expected)
        }
        let edit = try Content(id: MessageID.random(using: random), sentAt: 1, body: .edit(of: target, text: "x")).encoded()
        #expect(Content.editedMessageID(inEncoded: edit) == target.bytes)
        #expect(Content.editedMessageID(inEncoded: Array(edit.prefix(41))) == nil)
    }

    /// An expiring content (0x12, docs/PROTOCOL.md §10.7) wraps only a
    /// message shown in history, with a timer of 1 s to 4 weeks: the sender
    /// cannot encode another, and a timer change stays within 4 weeks. An
    /// edit is never wrapped: it keeps the expiry of the message it edits.
    @Test func expiringContentsWrapOnlyMessagesWithinTheBound() throws {
        let target = MessageID.random(using: random)
        for body: ContentBody in [.expiring(after: 0, .text("x")), .expiring(after: 2_419_201, .text("x")),
                                  .expiring(after: 60, .reaction(to: target, emoji: "👍")),
                                  .expiring(after: 60, .edit(of: target, text: "x")),
                                  .expiring(after: 60, .expiring(after: 60, .text("x"))), .disappearingTimer(seconds: 2_419_201)] {
            #expect(throws: ProtocolError.self) { try Content(id: target, sentAt: 1, body: body).encoded() }
        }
    }

    /// A reaction is one grapheme cluster of at most 32 bytes with no control
    /// or bidirectional formatting character: the sender cannot encode
    /// another, and a receiver refuses one as malformed (docs/PROTOCOL.md §10.5).
    @Test func reactionsCarryOneEmojiOrNone() throws {
        let target = MessageID.random(using: random)
        for emoji in ["👍", "🇫🇷", "👩‍👩‍👧", "❤️", "x"] { #expect(ReactionEmoji.isAcceptable(emoji), "\(emoji)") }
        for emoji in ["", "👍👍", "ab", String(repeating: "👩‍👩‍👧", count: 2), "\u{202E}", "\u{7}", "e\u{301}\u{200F}"] {
            #expect(!ReactionEmoji.isAcceptable(emoji), "\(emoji.unicodeScalars.map(\.value))")
            #expect(throws: ProtocolError.self) { try Content(id: target, sentAt: 1, body: .reaction(to: target, emoji: emoji)).encoded() }
        }
        // 33 bytes in one cluster (a letter with many combining marks) is too long even so.
        let long = "e" + String(repeating: "\u{301}", count: 16)
        #expect(long.count == 1 && long.utf8.count == 33 && !ReactionEmoji.isAcceptable(long))
        var encoded = try Content(id: target, sentAt: 1, body: .reaction(to: target, emoji: "👍")).encoded()
        encoded[encoded.count - 5] = 33
        #expect(throws: ProtocolError.malformed(what: "reaction length")) { try Content(decoding: encoded) }
    }

    @Test func strictDecoding() throws {
        let good = try Content(id: MessageID.random(using: random), sentAt: 1, body: .text("hi")).encoded()
        #expect(throws: ProtocolError.malformed(what: "content (trailing bytes)")) { try Content(decoding: good + [0]) }
        #expect(throws: ProtocolError.unsupportedVersion(2)) { try Content(decoding: [2] + good.dropFirst()) }
        var unknownType = good; unknownType[1] = 0xFF
        #expect(throws: ProtocolError.malformed(what: "content type")) { try Content(decoding: unknownType) }
        for cut in 0..<good.count {
            #expect(throws: ProtocolError.self) { try Content(decoding: Array(good[..<cut])) }
        }
        var badUTF8 = good; badUTF8[badUTF8.count - 1] = 0xFF
        #expect(throws: ProtocolError.malformed(what: "UTF-8 text")) { try Content(decoding: badUTF8) }
        // A receipt claiming more ids than allowed is refused before reading them.
        var receipt: [UInt8] = [1, 2] + random.bytes(16) + [UInt8](repeating: 0, count: 8)
        receipt.appendBigEndian(UInt16(ContentLimits.maxReceiptIDs + 1))
        #expect(throws: ProtocolError.malformed(what: "receipt count")) { try Content(decoding: receipt) }
        var empty: [UInt8] = [1, 2] + random.bytes(16) + [UInt8](repeating: 0, count: 8)
        empty.appendBigEndian(UInt16(0))
        #expect(throws: ProtocolError.self) { try Content(decoding: empty) }
        #expect(throws: ProtocolError.self) { try Content(id: MessageID.random(using: random), sentAt: 0, body: .text("")).encoded() }
        #expect(throws: ProtocolError.self) { try Content(id: MessageID.random(using: random), sentAt: 0, body: .deliveryCredential([1])).encoded() }
    }
}

@Suite struct RedactionTests {
    @Test func secretsDoNotReachDescriptionsOrDumps() throws {
        let random = DeterministicRandom(seed: "redaction")
        let token = random.bytes(32)
        let content = Content(id: MessageID.random(using: random), sentAt: 0, body: .deliveryCredential(token))
        let kem = MLKEM.PrivateKey(using: random)
        var dumped = ""
        dump(content, to: &dumped)
        dump(kem, to: &dumped)
        let printed = dumped + "\(content) \(kem) \(content.body)" + String(reflecting: content)
        #expect(!printed.contains(Hex.encode(token)))
        #expect(!printed.contains("\(token[0]), \(token[1]), \(token[2])"))  // Swift's array printing
        #expect(!printed.contains(Hex.encode(kem.seed.copyBytes())))
        #expect(!dumpShows(token, in: dumped))
        #expect(!dumpShows(kem.seed.copyBytes(), in: dumped))
    }
}
