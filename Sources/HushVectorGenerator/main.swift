import Foundation
import HushCrypto
@_spi(Vectors) import enum HushKit.BackupVectorArchive
@_spi(Vectors) import HushProtocol
import HushVectors

// Writes Vectors/protocol/*.json from fixed seeds:
//   swift run HushVectorGenerator [output directory, default Vectors/protocol]
// Every random input is derived from a label (VectorSeeds) and recorded in the
// vectors. ML-KEM encapsulation cannot take given randomness in swift-crypto
// 4.5.2, so its ciphertexts are pinned in pinned-kem-ciphertexts.txt: made once,
// then read back, which keeps regeneration byte-identical (Vectors/README.md).

let directory = CommandLine.arguments.dropFirst().first ?? "Vectors/protocol"
try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
let pins = try PinnedCiphertexts(path: directory + "/pinned-kem-ciphertexts.txt")

// MARK: Inputs shared by the handshake, ratchet, first-message and safety-number vectors.

func scenario(_ name: String, oneTime: Bool, kemKind: PrekeyKind) throws -> [String: Any] {
    var inputs: [String: Any] = [
        "alice_identity_seed": VectorSeeds.hex("alice/identity", 32),
        "bob_identity_seed": VectorSeeds.hex("bob/identity", 32),
        "bob_signed_prekey_id": 1,
        "bob_signed_prekey_private": VectorSeeds.hex("bob/signed-prekey", 32),
        "bob_kem_prekey_kind": Int(kemKind.rawValue),
        "bob_kem_prekey_id": kemKind == .lastResortKEM ? 2 : 9,
        "bob_kem_prekey_seed": VectorSeeds.hex("bob/kem-prekey/\(kemKind)", 64),
        "alice_ephemeral_private": VectorSeeds.hex("\(name)/alice/ephemeral", 32),
    ]
    if oneTime {
        inputs["bob_one_time_prekey_id"] = 100
        inputs["bob_one_time_prekey_private"] = VectorSeeds.hex("bob/one-time-prekey", 32)
    }
    let bob = try IdentityKeyPair(seed: SecureBytes(copying: Hex.decode(inputs["bob_identity_seed"] as! String)))
    let kem = try PrivatePrekey(kind: kemKind, id: UInt32(inputs["bob_kem_prekey_id"] as! Int),
                                secret: SecureBytes(copying: Hex.decode(inputs["bob_kem_prekey_seed"] as! String)), identity: bob)
    inputs["kem_ciphertext"] = Hex.encode(try pins.ciphertext(label: "\(kemKind)", publicKey: kem.signed.publicKey))
    return inputs
}

func handshakeCase(_ comment: String, name: String, oneTime: Bool, kemKind: PrekeyKind) throws -> [String: Any] {
    var c = try scenario(name, oneTime: oneTime, kemKind: kemKind)
    c["comment"] = comment
    let s = try Scenario(c)
    c["alice_identity_key"] = Hex.encode(s.alice.publicKey.rawRepresentation)
    c["bob_identity_key"] = Hex.encode(s.bob.publicKey.rawRepresentation)
    c["alice_agreement_key"] = Hex.encode(s.alice.agreementKey.publicKey.rawRepresentation)
    c["bob_agreement_key"] = Hex.encode(s.bob.agreementKey.publicKey.rawRepresentation)
    c["bob_signed_prekey_public"] = Hex.encode(s.signedPrekey.signed.publicKey)
    c["bob_signed_prekey_signature"] = Hex.encode(s.signedPrekey.signed.signature)
    if let opk = s.oneTimePrekey {
        c["bob_one_time_prekey_public"] = Hex.encode(opk.signed.publicKey)
        c["bob_one_time_prekey_signature"] = Hex.encode(opk.signed.signature)
    }
    c["bob_kem_prekey_public"] = Hex.encode(s.kemPrekey.signed.publicKey)
    c["bob_kem_prekey_signature"] = Hex.encode(s.kemPrekey.signed.signature)
    c["alice_ephemeral_public"] = Hex.encode(s.ephemeral.publicKey.rawRepresentation)
    // The DH values, computed independently of Handshake for implementers to check step by step.
    let spk = try X25519.PublicKey(rawRepresentation: s.signedPrekey.signed.publicKey)
    c["dh1"] = Hex.encode(try s.alice.agreementKey.sharedSecret(with: spk).copyBytes())
    c["dh2"] = Hex.encode(try s.ephemeral.sharedSecret(with: s.bob.agreementKey.publicKey).copyBytes())
    c["dh3"] = Hex.encode(try s.ephemeral.sharedSecret(with: spk).copyBytes())
    if let opk = s.oneTimePrekey {
        c["dh4"] = Hex.encode(try s.ephemeral.sharedSecret(with: X25519.PublicKey(rawRepresentation: opk.signed.publicKey)).copyBytes())
    }
    let encapsulation = try s.encapsulation
    c["kem_shared_secret"] = Hex.encode(encapsulation.sharedSecret.copyBytes())
    let (message, secrets) = try Handshake.initiate(identity: s.alice, bundle: s.bundle, ephemeral: s.ephemeral, encapsulation: encapsulation)
    c["handshake_init"] = Hex.encode(message.encoded)
    c["transcript_hash"] = Hex.encode(secrets.transcriptHash)
    c["root_key"] = Hex.encode(secrets.rootKey.copyBytes())
    c["initiator_header_key"] = Hex.encode(secrets.initiatorHeaderKey.copyBytes())
    c["responder_next_header_key"] = Hex.encode(secrets.responderNextHeaderKey.copyBytes())
    c["associated_data"] = Hex.encode(secrets.associatedData)
    return c
}

try write("handshake", source: "Hush generator (Sources/HushVectorGenerator) from fixed seeds; ML-KEM ciphertexts pinned", cases: [
    try handshakeCase("signed prekey, one-time X25519 prekey, last-resort ML-KEM prekey", name: "handshake/1", oneTime: true, kemKind: .lastResortKEM),
    try handshakeCase("signed prekey only, one-time ML-KEM prekey", name: "handshake/2", oneTime: false, kemKind: .oneTimeKEM),
])

// MARK: Ratchet conversation.

func ratchetCase() throws -> [String: Any] {
    // The handshake's inputs and intermediate values too, so the case stands alone.
    var c = try handshakeCase("", name: "ratchet", oneTime: true, kemKind: .lastResortKEM)
    c["comment"] = "out-of-order delivery within and across chains, four DH ratchet steps, replays rejected"
    c["alice_ratchet_private"] = VectorSeeds.hex("ratchet/alice/ratchet-0", 32)
    let s = try Scenario(c)
    let (_, secrets) = try Handshake.initiate(identity: s.alice, bundle: s.bundle, ephemeral: s.ephemeral, encapsulation: s.encapsulation)
    let alice = try DoubleRatchet(initiator: secrets, responderRatchetKey: X25519.PublicKey(rawRepresentation: s.signedPrekey.signed.publicKey),
                                  ratchetKey: X25519.PrivateKey(rawRepresentation: SecureBytes(copying: Hex.decode(c["alice_ratchet_private"] as! String))))
    let bob = DoubleRatchet(responder: secrets, ratchetKey: try X25519.PrivateKey(rawRepresentation: s.signedPrekey.secret))
    let ratchets = ["alice": alice, "bob": bob]
    let stores = ["alice": InMemorySkippedMessageKeyStore(), "bob": InMemorySkippedMessageKeyStore()]
    var sent: [String: [UInt8]] = [:]
    var events: [[String: Any]] = []
    var draws = 0
    func send(_ from: String, _ label: String) throws {
        let content = Array("message \(label) from \(from)".utf8)
        let message = try ratchets[from]!.encrypt(content)
        sent[label] = message
        events.append(["op": "send", "from": from, "label": label, "content": Hex.encode(content), "message": Hex.encode(message)])
    }
    func receive(_ to: String, _ label: String, step: Bool) throws {
        var event: [String: Any] = ["op": "receive", "to": to, "label": label]
        var values: [[UInt8]] = []
        if step {
            draws += 1
            let key = VectorSeeds.bytes("ratchet/\(to)/ratchet-\(draws)", 32)
            values.append(key)
            event["random"] = Hex.encode(key)
        }
        _ = try ratchets[to]!.decrypt(sent[label]!, skippedKeys: stores[to]!, using: ScriptedRandom(values))
        event["skipped_after"] = stores[to]!.count()
        events.append(event)
    }
    try send("alice", "a0"); try send("alice", "a1"); try send("alice", "a2")
    try receive("bob", "a0", step: true)
    try receive("bob", "a2", step: false)
    try send("bob", "b0"); try send("bob", "b1")
    try receive("alice", "b1", step: true)
    try send("alice", "a3")
    try receive("bob", "a1", step: false)
    try receive("bob", "a3", step: true)
    try receive("alice", "b0", step: false)
    try send("bob", "b2")
    try receive("alice", "b2", step: true)
    events.append(["op": "reject", "to": "bob", "label": "a3"])
    events.append(["op": "reject", "to": "alice", "label": "b0"])
    c["events"] = events
    return c
}

try write("ratchet", source: "Hush generator (Sources/HushVectorGenerator) from fixed seeds", cases: [try ratchetCase()])

// MARK: First message (sealed sender + handshake + ratchet).

func firstMessageCase() throws -> [String: Any] {
    var c = try handshakeCase("", name: "first-message", oneTime: true, kemKind: .lastResortKEM)
    c["comment"] = "Alice's first envelope to Bob: a prekey message carrying a text content"
    c["alice_ratchet_private"] = VectorSeeds.hex("first-message/alice/ratchet-0", 32)
    c["sealed_sender_ephemeral_private"] = VectorSeeds.hex("first-message/alice/sealed-sender", 32)
    c["bob_ratchet_private"] = VectorSeeds.hex("first-message/bob/ratchet-1", 32)
    let text = "Hello, Bob!"
    let content = Content(id: try MessageID(bytes: VectorSeeds.bytes("first-message/message-id", 16)), sentAt: 1_767_225_600_000, body: .text(text))
    c["text"] = text
    c["content"] = Hex.encode(try content.encoded())
    let s = try Scenario(c)
    let session = try Session.initiate(identity: s.alice, bundle: s.bundle, ephemeral: s.ephemeral,
                                       ratchetKey: X25519.PrivateKey(rawRepresentation: SecureBytes(copying: Hex.decode(c["alice_ratchet_private"] as! String))),
                                       encapsulation: s.encapsulation)
    let envelope = try session.seal(try content.encoded(), using: ScriptedRandom([try Hex.decode(c["sealed_sender_ephemeral_private"] as! String)]))
    c["envelope"] = Hex.encode(envelope)
    c["ratchet_message"] = Hex.encode(try SealedSender.open(envelope, recipient: s.bob).ratchetMessage)
    return c
}

try write("first-message", source: "Hush generator (Sources/HushVectorGenerator) from fixed seeds; ML-KEM ciphertext pinned", cases: [try firstMessageCase()])

// MARK: Sealed sender alone.

func sealedSenderCase() throws -> [String: Any] {
    let recipient = try IdentityKeyPair(seed: SecureBytes(copying: VectorSeeds.bytes("bob/identity", 32)))
    let sender = try IdentityKeyPair(seed: SecureBytes(copying: VectorSeeds.bytes("alice/identity", 32)))
    let ephemeralBytes = VectorSeeds.bytes("sealed-sender/ephemeral", 32)
    let ephemeral = try X25519.PrivateKey(rawRepresentation: SecureBytes(copying: ephemeralBytes))
    // Any bytes of a valid ratchet-message length stand in for the ratchet message here.
    let ratchetMessage = (0..<6).flatMap { VectorSeeds.bytes("sealed-sender/ratchet-message/\($0)", 64) }.prefix(352)
    let contents = OpenedEnvelope(sender: sender.publicKey, handshake: nil, ratchetMessage: Array(ratchetMessage))
    let shared = try ephemeral.sharedSecret(with: recipient.agreementKey.publicKey)
    let key = try SealedSender.layerKey(shared: { () throws(CryptoError) in shared }, ephemeral: ephemeral.publicKey,
                                        recipientAgreement: recipient.agreementKey.publicKey)
    let envelope = try SealedSender.seal(contents, to: recipient.publicKey, using: ScriptedRandom([ephemeralBytes]))
    return [
        "comment": "a message (type 0x01) envelope; the ratchet message is stand-in bytes of the minimum length",
        "recipient_identity_seed": Hex.encode(recipient.seed.copyBytes()),
        "recipient_identity_key": Hex.encode(recipient.publicKey.rawRepresentation),
        "recipient_agreement_key": Hex.encode(recipient.agreementKey.publicKey.rawRepresentation),
        "sender_identity_key": Hex.encode(sender.publicKey.rawRepresentation),
        "ephemeral_private": Hex.encode(ephemeralBytes),
        "ephemeral_public": Hex.encode(ephemeral.publicKey.rawRepresentation),
        "shared_secret": Hex.encode(shared.copyBytes()),
        "layer_key": Hex.encode(key.copyBytes()),
        "ratchet_message": Hex.encode(Array(ratchetMessage)),
        "inner": Hex.encode(contents.encoded),
        "envelope": Hex.encode(envelope),
    ]
}

try write("sealed-sender", source: "Hush generator (Sources/HushVectorGenerator) from fixed seeds", cases: [try sealedSenderCase()])

// MARK: Padding.

try write("padding", source: "Hush generator (Sources/HushVectorGenerator); content is content_length bytes of 0x61", cases:
    try [0, 1, 100, 255, 256, 257, 1000, 1024, 4096, 65_536].map { length -> [String: Any] in
        let padded = try Padding.pad([UInt8](repeating: 0x61, count: length))
        return ["content_length": length, "padded_length": padded.count, "padded_sha256": Hex.encode(SHA256.hash(padded))]
    })

// MARK: Content.

func contentCases() throws -> [[String: Any]] {
    let id = try MessageID(bytes: VectorSeeds.bytes("content/id", 16))
    let refs = try (0..<2).map { try MessageID(bytes: VectorSeeds.bytes("content/ref-\($0)", 16)) }
    let sentAt: UInt64 = 1_767_225_600_000
    var bodies: [(String, ContentBody)] = [
        ("text", .text("Hello, Bob! 👋")),
        ("delivery receipt for two messages", .deliveryReceipt(refs)),
        ("read receipt for one message", .readReceipt([refs[0]])),
        ("typing started", .typingStarted),
        ("typing stopped", .typingStopped),
        ("attachment pointer", .attachment(try AttachmentPointer(key: SecureBytes(copying: VectorSeeds.bytes("content/attachment-key", 32)),
                                                                 digest: SHA256.hash(Array("blob".utf8)), size: 48_213,
                                                                 blobID: Array("01J9ZQ4X7V".utf8), fileName: "photo.jpg",
                                                                 mediaType: "image/jpeg"))),
        ("delivery credential", .deliveryCredential(VectorSeeds.bytes("content/credential", 32))),
        ("profile", .profile(displayName: "Alice")),
        ("decryption error naming an envelope", .decryptionError(envelopeDigest: SHA256.hash(Array("sealed envelope".utf8)))),
        ("reply quoting a message", .reply(to: refs[0], text: "Me too!")),
        ("reaction", .reaction(to: refs[0], emoji: "👍")),
        ("reaction: one grapheme cluster of several code points (ZWJ sequence)", .reaction(to: refs[1], emoji: "👩‍👩‍👧")),
        ("reaction removed", .reaction(to: refs[0], emoji: nil)),
        ("edit of an earlier message", .edit(of: refs[1], text: "See you at 8, not 7.")),
        ("deletion of the sender's message for everyone", .deletion(of: refs[0])),
        ("disappearing timer set to one day", .disappearingTimer(seconds: 86_400)),
        ("disappearing timer off", .disappearingTimer(seconds: 0)),
        ("expiring text (one hour once read)", .expiring(after: 3_600, .text("This will disappear"))),
        ("expiring reply (one week once read)", .expiring(after: 604_800, .reply(to: refs[1], text: "ok"))),
        ("expiring attachment pointer (one day once read)",
         .expiring(after: 86_400, .attachment(try AttachmentPointer(key: SecureBytes(copying: VectorSeeds.bytes("content/attachment-key", 32)),
                                                                    digest: SHA256.hash(Array("blob".utf8)), size: 12,
                                                                    blobID: Array("01J9ZQ4X7W".utf8), fileName: "note.txt",
                                                                    mediaType: "text/plain")))),
    ]
    // Linked devices (§20.11): the account's list of one device, and what another device sent Bob.
    let account = try IdentityKeyPair(seed: SecureBytes(copying: VectorSeeds.bytes("devices/account", 32)))
    let phone = try vectorDevice("phone")
    let list = try DeviceList.sign(account: account, counter: 1, createdAt: 1_795_000_000_000, signer: phone,
                                   entries: [try DeviceListEntry.linking(phone, to: account.publicKey, name: "phone", addedAt: 1_795_000_000_000)])
    let bob = try IdentityKeyPair(seed: SecureBytes(copying: VectorSeeds.bytes("bob/identity", 32))).publicKey
    let transcribedID = try MessageID(bytes: VectorSeeds.bytes("content/transcribed", 16))
    bodies += [
        ("device list (0x13): an account's list of one device", .deviceList(list.encoded)),
        ("sent transcript (0x14) of a text sent to Bob from another device",
         .sentTranscript(recipient: bob, Content(id: transcribedID, sentAt: sentAt - 1_000, body: .text("sent from my laptop")))),
        ("sent transcript (0x14) of a read receipt sent to Bob",
         .sentTranscript(recipient: bob, Content(id: transcribedID, sentAt: sentAt - 1_000, body: .readReceipt([refs[0]])))),
    ]
    // Contacts between an account's devices (§20.16): Bob accepted and verified, Carol blocked, Dave removed.
    let carol = try IdentityKeyPair(seed: SecureBytes(copying: VectorSeeds.bytes("carol/identity", 32))).publicKey
    let dave = try IdentityKeyPair(seed: SecureBytes(copying: VectorSeeds.bytes("dave/identity", 32))).publicKey
    bodies += [
        ("contacts (0x17): Bob accepted and verified, Carol blocked, Dave removed",
         .contacts([try ContactRecord(identityKey: bob, stateChangedAt: sentAt - 9_000, state: .accepted, verifiedChangedAt: sentAt - 5_000,
                                      verified: true, nameChangedAt: sentAt - 9_000, name: "Bob"),
                    try ContactRecord(identityKey: carol, stateChangedAt: sentAt - 4_000, state: .blocked, verifiedChangedAt: sentAt - 8_000,
                                      verified: false, nameChangedAt: sentAt - 7_000, name: "Carol (work) ✉"),
                    try ContactRecord(identityKey: dave, stateChangedAt: sentAt - 3_000, state: .removed)])),
    ]
    // The recovery key a revocation made, handed to the account's other devices (§20.14).
    bodies += [
        ("recovery key (0x18) made when device list 2 revoked a device",
         .recoveryKey(listCounter: 2, key: SecureBytes(copying: VectorSeeds.bytes("content/recovery-key", 32)))),
    ]
    var cases: [[String: Any]] = []
    for (comment, body) in bodies {
        let encoded = try Content(id: id, sentAt: sentAt, body: body).encoded()
        cases.append(["comment": comment, "valid": true, "type": Int(body.typeByte), "message_id": Hex.encode(id.bytes), "encoded": Hex.encode(encoded)])
    }
    let text = try Content(id: id, sentAt: sentAt, body: .text("hi")).encoded()
    var unknownType = text; unknownType[1] = 0xFF
    var badUTF8 = text; badUTF8[badUTF8.count - 1] = 0xFF
    var zeroReceipt: [UInt8] = [0x01, 0x02] + id.bytes + [UInt8](repeating: 0, count: 8); zeroReceipt += [0x00, 0x00]
    for (comment, bytes) in [("trailing byte", text + [0x00]), ("unknown version 0x02", [0x02] + text.dropFirst()),
                             ("unknown type 0xff", unknownType), ("invalid UTF-8", badUTF8), ("truncated", Array(text.dropLast())),
                             ("receipt with zero ids", zeroReceipt)] + (try reactionAndReplyRejections(id: id, sentAt: sentAt, quoted: refs[0]))
                            + (try erasureRejections(id: id, sentAt: sentAt, target: refs[0]))
                            + (try deviceContentRejections(id: id, sentAt: sentAt, list: list.encoded, recipient: bob, text: text))
                            + (try contactRecordRejections(id: id, sentAt: sentAt, contact: bob))
                            + (try recoveryKeyRejections(id: id, sentAt: sentAt)) {
        cases.append(["comment": comment, "valid": false, "encoded": Hex.encode(bytes)])
    }
    return cases
}

/// Replies, reactions and edits a receiver MUST reject (docs/PROTOCOL.md §10.5, §10.6),
/// written byte by byte since the encoder refuses to produce them.
func reactionAndReplyRejections(id: MessageID, sentAt: UInt64, quoted: MessageID) throws -> [(String, [UInt8])] {
    // version, type, message id and sent at: the first 26 bytes of any content.
    let prefix = Array(try Content(id: id, sentAt: sentAt, body: .typingStarted).encoded())
    func content(_ type: UInt8, _ body: [UInt8]) -> [UInt8] {
        var out = prefix
        out[1] = type
        return out + quoted.bytes + body
    }
    func reaction(_ emoji: [UInt8]) -> [UInt8] { content(0x0E, [UInt8(emoji.count)] + emoji) }
    return [
        ("reply with empty text", content(0x0D, [0x00, 0x00])),
        ("reply without its quoted message id", Array(content(0x0D, []).dropLast(MessageID.length))),
        ("reply with invalid UTF-8", content(0x0D, [0x00, 0x01, 0xFF])),
        ("reaction of two emoji", reaction(Array("👍👍".utf8))),
        ("reaction of 33 bytes", reaction(Array(String(repeating: "a", count: 33).utf8))),
        ("reaction length byte beyond the content", content(0x0E, [0x04, 0xF0, 0x9F])),
        ("reaction with a control character", reaction([0x0A])),
        ("reaction with a bidirectional override", reaction(Array("\u{202E}".utf8))),
        ("reaction with invalid UTF-8", reaction([0xF0, 0x9F, 0x91])),
        ("edit with empty text", content(0x0F, [0x00, 0x00])),
        ("edit without its message id", Array(content(0x0F, []).dropLast(MessageID.length))),
        ("edit with a length past the end", content(0x0F, [0x00, 0x05, 0x61])),
        ("edit with invalid UTF-8", content(0x0F, [0x00, 0x01, 0xFF])),
    ]
}

/// Deletions, timers and expiring contents a receiver MUST reject
/// (docs/PROTOCOL.md §10.7), written byte by byte.
func erasureRejections(id: MessageID, sentAt: UInt64, target: MessageID) throws -> [(String, [UInt8])] {
    let prefix = Array(try Content(id: id, sentAt: sentAt, body: .typingStarted).encoded())
    func content(_ type: UInt8, _ body: [UInt8]) -> [UInt8] {
        var out = prefix
        out[1] = type
        return out + body
    }
    let day: [UInt8] = [0x00, 0x01, 0x51, 0x80]
    let text: [UInt8] = [0x01, 0x00, 0x02, 0x68, 0x69]
    return [
        ("deletion without its message id", content(0x10, Array(target.bytes.prefix(15)))),
        ("deletion with a trailing byte", content(0x10, target.bytes + [0x00])),
        ("disappearing timer above 4 weeks", content(0x11, [0x00, 0x24, 0xEA, 0x01])),
        ("expiring content of 0 seconds", content(0x12, [0x00, 0x00, 0x00, 0x00] + text)),
        ("expiring content wrapping a reaction", content(0x12, day + [0x0E] + target.bytes + [0x00])),
        ("expiring content wrapping an expiring content", content(0x12, day + [0x12] + day + text)),
        // An edit keeps the expiry of the message it edits (§10.6): it never carries a timer of its own.
        ("expiring content wrapping an edit", content(0x12, day + [0x0F] + target.bytes + [0x00, 0x02, 0x68, 0x69])),
        ("expiring text with a trailing byte", content(0x12, day + text + [0x00])),
    ]
}

/// Device lists and sent transcripts a receiver MUST reject (docs/PROTOCOL.md §20.11).
func deviceContentRejections(id: MessageID, sentAt: UInt64, list: [UInt8], recipient: IdentityKey, text: [UInt8]) throws -> [(String, [UInt8])] {
    let prefix = Array(try Content(id: id, sentAt: sentAt, body: .typingStarted).encoded())
    func content(_ type: UInt8, _ body: [UInt8]) -> [UInt8] {
        var out = prefix
        out[1] = type
        return out + body
    }
    func length(_ count: Int) -> [UInt8] { [UInt8(count >> 8), UInt8(count & 0xFF)] }
    let transcript = content(0x14, recipient.rawRepresentation + text)
    let typing = try Content(id: id, sentAt: sentAt, body: .typingStarted).encoded()
    let credential = try Content(id: id, sentAt: sentAt, body: .deliveryCredential([UInt8](repeating: 7, count: 32))).encoded()
    return [
        ("device list of 193 bytes (shorter than any list)", content(0x13, length(193) + list.prefix(193))),
        ("device list whose length runs past the end", content(0x13, length(list.count + 1) + list)),
        ("device list with a trailing byte", content(0x13, length(list.count) + list + [0x00])),
        ("sent transcript wrapping a sent transcript", content(0x14, recipient.rawRepresentation + transcript)),
        ("sent transcript wrapping a device list", content(0x14, recipient.rawRepresentation + content(0x13, length(list.count) + list))),
        ("sent transcript wrapping typing", content(0x14, recipient.rawRepresentation + typing)),
        ("sent transcript wrapping a delivery credential", content(0x14, recipient.rawRepresentation + credential)),
        ("sent transcript without its recipient", content(0x14, Array(recipient.rawRepresentation.prefix(20)))),
        ("sent transcript of a text with a trailing byte", content(0x14, recipient.rawRepresentation + text + [0x00])),
    ]
}

/// Contacts contents (0x17) a receiver MUST reject (docs/PROTOCOL.md §20.16), written byte by byte.
func contactRecordRejections(id: MessageID, sentAt: UInt64, contact: IdentityKey) throws -> [(String, [UInt8])] {
    let prefix = Array(try Content(id: id, sentAt: sentAt, body: .typingStarted).encoded())
    func content(_ count: Int, _ records: [UInt8]) -> [UInt8] {
        var out = prefix
        out[1] = 0x17
        return out + [UInt8(count >> 8), UInt8(count & 0xFF)] + records
    }
    func u64(_ value: UInt64) -> [UInt8] { (0..<8).map { UInt8(truncatingIfNeeded: value >> (56 - 8 * $0)) } }
    let time = u64(sentAt - 5_000)
    func record(key: [UInt8]? = nil, stateAt: [UInt8]? = nil, state: UInt8 = 0x01, verifiedAt: [UInt8]? = nil, verified: UInt8 = 0x00,
                nameAt: [UInt8]? = nil, name: [UInt8] = Array("Bob".utf8)) -> [UInt8] {
        (key ?? contact.rawRepresentation) + (stateAt ?? time) + [state] + (verifiedAt ?? time) + [verified] + (nameAt ?? time)
            + [UInt8(name.count >> 8), UInt8(name.count & 0xFF)] + name
    }
    let zero = u64(0)
    return [
        ("contacts with no record", content(0, [])),
        ("contacts counting 201 records (above 200)", content(201, record())),
        ("contacts counting two records, holding one", content(2, record())),
        ("contact record of state 3", content(1, record(state: 0x03))),
        ("contact record with verified flag 2", content(1, record(verified: 0x02))),
        ("accepted contact record without a name", content(1, record(name: []))),
        ("removed contact record with a name", content(1, record(state: 0x00, verifiedAt: zero, nameAt: zero))),
        ("removed contact record marked verified", content(1, record(state: 0x00, verifiedAt: zero, verified: 0x01, nameAt: zero, name: []))),
        ("removed contact record with a name time", content(1, record(state: 0x00, verifiedAt: zero, name: []))),
        ("removed contact record with a verification time", content(1, record(state: 0x00, nameAt: zero, name: []))),
        ("contact record name of 257 bytes", content(1, record(name: [UInt8](repeating: 0x61, count: 257)))),
        ("contact record name with invalid UTF-8", content(1, record(name: [0x42, 0xFF]))),
        ("contact record time of 2^63", content(1, record(stateAt: u64(1 << 63)))),
        ("contact record whose identity key is of small order", content(1, record(key: [0x01] + [UInt8](repeating: 0, count: 31)))),
        ("contacts naming one contact twice", content(2, record() + record(state: 0x02))),
        ("contacts with a trailing byte", content(1, record() + [0x00])),
    ]
}

/// Recovery key contents (0x18) a receiver MUST reject (docs/PROTOCOL.md §20.14), written byte by byte.
func recoveryKeyRejections(id: MessageID, sentAt: UInt64) throws -> [(String, [UInt8])] {
    var prefix = Array(try Content(id: id, sentAt: sentAt, body: .typingStarted).encoded())
    prefix[1] = 0x18
    func u64(_ value: UInt64) -> [UInt8] { (0..<8).map { UInt8(truncatingIfNeeded: value >> (56 - 8 * $0)) } }
    let key = VectorSeeds.bytes("content/recovery-key", 32)
    return [
        ("recovery key for device list counter 0", prefix + u64(0) + key),
        ("recovery key for device list counter 2^63", prefix + u64(1 << 63) + key),
        ("recovery key of 31 bytes", prefix + u64(2) + key.dropLast()),
        ("recovery key with a trailing byte", prefix + u64(2) + key + [0x00]),
    ]
}

try write("content", source: "Hush generator (Sources/HushVectorGenerator)", cases: try contentCases())

// MARK: Attachment blobs.

/// One file sealed into a blob with a fixed key and header. Small files carry
/// their plaintext and sealed bytes; larger ones (byte i is i mod 251) only lengths and digests.
func attachmentCase(_ comment: String, plaintext given: [UInt8]?, length: Int) throws -> [String: Any] {
    let file = given ?? (0..<length).map { UInt8($0 % 251) }
    let key = VectorSeeds.bytes("attachment/key/\(comment)", 32), header = VectorSeeds.bytes("attachment/header/\(comment)", 24)
    let sealer = try AttachmentSealer(key: SecureBytes(copying: key), plaintextSize: UInt64(file.count), fixedHeader: header)
    let sealed = try sealer.sealAll(file)
    var fields: [String: Any] = ["comment": comment, "key": Hex.encode(key), "header": Hex.encode(header),
                                 "sealed_sha256": Hex.encode(SHA256.hash(sealed)), "blob_length": Int(sealer.blobLength),
                                 "digest": Hex.encode(try sealer.digest())]
    if let given {
        fields["plaintext"] = Hex.encode(given)
        fields["sealed"] = Hex.encode(sealed)
    } else {
        fields["plaintext_length"] = length
    }
    return fields
}

try write("attachment", source: "Hush generator (Sources/HushVectorGenerator); without `plaintext`, byte i of the file is i mod 251", cases: [
    try attachmentCase("small file", plaintext: Array("Hello, Bob! This is a small file.\n".utf8), length: 0),
    try attachmentCase("empty file: one empty final chunk", plaintext: [], length: 0),
    try attachmentCase("exactly one chunk", plaintext: nil, length: AttachmentBlob.chunkSize),
    try attachmentCase("three chunks, the last one short", plaintext: nil, length: 2 * AttachmentBlob.chunkSize + 1_000),
])

// MARK: Sender keys (groups).

/// One sender chain from fixed keys: its signed distribution (with the
/// bytes the signature covers), each message with the chain and message keys
/// of its step (KDF_CK computed here by hand), the order a receiver reads them
/// in, a forgery that must be refused, and distributions that must be refused.
func senderKeyCase(_ comment: String, contents: [String], receiveOrder: [Int]) throws -> [String: Any] {
    let group = VectorSeeds.bytes("sender-key/group/\(comment)", 16)
    let chainKey = VectorSeeds.bytes("sender-key/chain/\(comment)", 32)
    let signingSeed = VectorSeeds.bytes("sender-key/signing/\(comment)", 32)
    let memberSeed = VectorSeeds.bytes("sender-key/member/\(comment)", 32)
    let member = try IdentityKeyPair(seed: SecureBytes(copying: memberSeed)).publicKey
    let chain = try SenderKeyChain.own(groupID: group, epoch: 3, chainKey: SecureBytes(copying: chainKey), signingSeed: SecureBytes(copying: signingSeed))
    let signed = try chain.distribution(from: member)
    let distribution = signed.encoded
    let refused = try refusedDistributions(signed, member: member, comment: comment)
    var steps: [[String: Any]] = []
    var ck = chainKey
    for content in contents {
        let mk = HMACSHA256.authenticationCode(for: [RatchetConstants.messageKeyConstant], key: ck)
        steps.append(["chain_key": Hex.encode(ck), "message_key": Hex.encode(mk), "content": Hex.encode(Array(content.utf8)),
                      "message": Hex.encode(try chain.encrypt(Array(content.utf8)))])
        ck = HMACSHA256.authenticationCode(for: [RatchetConstants.chainKeyConstant], key: ck)
    }
    // The forgery: the first message with its signature replaced by another key's.
    let forgerSeed = VectorSeeds.bytes("sender-key/forger/\(comment)", 32)
    var forged = try Hex.decode(steps[0]["message"] as! String)
    let forger = try Ed25519.PrivateKey(seed: SecureBytes(copying: forgerSeed))
    forged.replaceSubrange((forged.count - 64)..., with: forger.signature(for: forged[..<(forged.count - 64)]))
    return ["comment": comment, "group_id": Hex.encode(group), "epoch": 3, "chain_key": Hex.encode(chainKey),
            "signing_seed": Hex.encode(signingSeed), "signing_public": Hex.encode(chain.signingKey.rawRepresentation),
            "member_identity_seed": Hex.encode(memberSeed), "member_identity_key": Hex.encode(member.rawRepresentation),
            "distribution_transcript": Hex.encode(signed.transcript(member: member)),
            "distribution": Hex.encode(distribution), "messages": steps, "receive_order": receiveOrder,
            "chain_key_after": Hex.encode(try chain.distribution(from: member).chainKey.copyBytes()),
            "forger_signing_seed": Hex.encode(forgerSeed), "forged_message": Hex.encode(forged),
            "refused_distributions": refused]
}

/// Distributions a receiver MUST refuse, each with the identity key of the
/// member whose pairwise session delivers it (docs/PROTOCOL.md §18.1):
/// another member naming this chain's signing key (signed with the only
/// signing key it holds, its own), this distribution passed on by another
/// member, moved to another group or epoch, a signature altered, and the
/// unsigned version 0x01.
func refusedDistributions(_ valid: SenderKeyDistribution, member: IdentityKey, comment: String) throws -> [[String: Any]] {
    let mallory = try IdentityKeyPair(seed: SecureBytes(copying: VectorSeeds.bytes("sender-key/mallory/\(comment)", 32))).publicKey
    let malloryChain = try SenderKeyChain.own(groupID: valid.groupID, epoch: valid.epoch,
                                              chainKey: SecureBytes(copying: VectorSeeds.bytes("sender-key/mallory-chain/\(comment)", 32)),
                                              signingSeed: SecureBytes(copying: VectorSeeds.bytes("sender-key/mallory-signing/\(comment)", 32)))
    let malloryOwn = try malloryChain.distribution(from: mallory)
    // Her own fields and signature, naming the member's signing key instead of hers.
    let namingAnother = try SenderKeyDistribution(groupID: malloryOwn.groupID, epoch: malloryOwn.epoch, iteration: malloryOwn.iteration,
                                                  chainKey: malloryOwn.chainKey, signingKey: valid.signingKey, signature: malloryOwn.signature)
    func altered(groupID: [UInt8]? = nil, epoch: UInt32? = nil, signature: [UInt8]? = nil) throws -> SenderKeyDistribution {
        try SenderKeyDistribution(groupID: groupID ?? valid.groupID, epoch: epoch ?? valid.epoch, iteration: valid.iteration,
                                  chainKey: valid.chainKey, signingKey: valid.signingKey, signature: signature ?? valid.signature)
    }
    var flipped = valid.signature
    flipped[0] ^= 0x01
    let unsigned = [SenderKeyWire.unsignedDistributionVersion] + Array(valid.encoded[1..<SenderKeyWire.distributionBodyLength])
    func refusal(_ why: String, _ bytes: [UInt8], from sender: IdentityKey, _ reason: String) -> [String: Any] {
        ["comment": why, "distribution": Hex.encode(bytes), "from_identity_key": Hex.encode(sender.rawRepresentation), "reason": reason]
    }
    return [
        refusal("another member (mallory) names this chain's signing key in her own distribution", namingAnother.encoded, from: mallory,
                "signature"),
        refusal("this distribution, passed on by another member (mallory) as her own", valid.encoded, from: mallory, "signature"),
        refusal("this distribution moved to another group", try altered(groupID: valid.groupID.map { $0 ^ 0xFF }).encoded, from: member,
                "signature"),
        refusal("this distribution moved to the next epoch", try altered(epoch: valid.epoch + 1).encoded, from: member, "signature"),
        refusal("the signature altered (one bit of R)", try altered(signature: flipped).encoded, from: member, "signature"),
        refusal("the unsigned version 0x01 (89 bytes)", unsigned, from: member, "version"),
    ]
}

try write("sender-key", source: "Hush generator (Sources/HushVectorGenerator) from fixed seeds", cases: [
    try senderKeyCase("three messages, read in order", contents: ["Hello, group!", "", "The third message."], receiveOrder: [0, 1, 2]),
    try senderKeyCase("four messages, read out of order", contents: ["one", "two", "three", "four"], receiveOrder: [3, 0, 2, 1]),
])

// MARK: Groups: states, group envelopes, group content.

func groupMembers(_ names: [String], admins: Set<String>) throws -> [GroupState.Member] {
    try names.map { name in
        let identity = try IdentityKeyPair(seed: SecureBytes(copying: VectorSeeds.bytes("\(name)/identity", 32)))
        return GroupState.Member(identityKey: identity.publicKey, role: admins.contains(name) ? .admin : .member, label: name)
    }
}

func groupStateFields(_ state: GroupState) throws -> [String: Any] {
    ["group_id": Hex.encode(state.groupID), "epoch": Int(state.epoch), "secret": Hex.encode(state.secret.copyBytes()), "name": state.name,
     "members": state.members.map { ["identity_key": Hex.encode($0.identityKey.rawRepresentation), "role": Int($0.role.rawValue), "label": $0.label] },
     "encoded": Hex.encode(state.encoded), "digest": Hex.encode(state.digest), "envelope_key": Hex.encode(try state.envelopeKey().copyBytes())]
}

func groupCases() throws -> [[String: Any]] {
    let groupID = VectorSeeds.bytes("group/id", 16)
    let id = try MessageID(bytes: VectorSeeds.bytes("group/message-id", 16))
    let sentAt: UInt64 = 1_767_225_600_000
    let state = try GroupState(groupID: groupID, epoch: 1, secret: SecureBytes(copying: VectorSeeds.bytes("group/secret/1", 32)),
                               name: "Hikers 🏔", members: try groupMembers(["alice", "bob", "carol"], admins: ["alice"]))
    var stateCase = try groupStateFields(state)
    stateCase["kind"] = "state"
    stateCase["comment"] = "a state of three members, alice the admin, as content 0x0A"
    stateCase["content"] = Hex.encode(try Content(id: id, sentAt: sentAt, body: .groupUpdate(state)).encoded())
    stateCase["message_id"] = Hex.encode(id.bytes)

    // Two admins change epoch 1 at once: both write epoch 2; the lower digest wins everywhere.
    let a = try GroupState(groupID: groupID, epoch: 2, secret: SecureBytes(copying: VectorSeeds.bytes("group/secret/2a", 32)),
                           name: "Hikers 🏔", members: try groupMembers(["alice", "bob", "carol", "dave"], admins: ["alice", "bob"]))
    let b = try GroupState(groupID: groupID, epoch: 2, secret: SecureBytes(copying: VectorSeeds.bytes("group/secret/2b", 32)),
                           name: "Hikers", members: try groupMembers(["alice", "bob"], admins: ["alice", "bob"]))
    let tieBreak: [String: Any] = ["kind": "order", "comment": "two states of epoch 2 written at once: the lower digest supersedes",
                                   "first": try groupStateFields(a), "second": try groupStateFields(b),
                                   "superseding": a.supersedes(b) ? "first" : "second"]

    // A group message of a chain with fixed keys, inside a group envelope with a fixed nonce.
    let chain = try SenderKeyChain.own(groupID: groupID, epoch: 1, chainKey: SecureBytes(copying: VectorSeeds.bytes("group/chain", 32)),
                                       signingSeed: SecureBytes(copying: VectorSeeds.bytes("group/signing", 32)))
    // Alice's chain: her distribution is signed for her identity key.
    let alice = try groupMembers(["alice"], admins: ["alice"])[0].identityKey
    let distribution = try chain.distribution(from: alice)
    let text = try Content(id: id, sentAt: sentAt, body: .text("Summit at noon.")).encoded()
    let message = try chain.encrypt(text)
    let nonce = VectorSeeds.bytes("group/nonce", 24)
    let envelope = try GroupEnvelope.seal(message, key: state.envelopeKey(), nonce: nonce)
    let envelopeCase: [String: Any] = [
        "kind": "envelope", "comment": "a text sent to the group: the sender-key message inside a group envelope",
        "envelope_key": Hex.encode(try state.envelopeKey().copyBytes()), "nonce": Hex.encode(nonce),
        "distribution": Hex.encode(distribution.encoded), "member_identity_key": Hex.encode(alice.rawRepresentation),
        "content": Hex.encode(text), "group_message": Hex.encode(message),
        "envelope": Hex.encode(envelope),
        "other_envelope_key": Hex.encode(try b.envelopeKey().copyBytes())]

    let contents: [String: Any] = [
        "kind": "content", "comment": "a sender key distribution (0x0B) and a leave notice (0x0C) as content",
        "message_id": Hex.encode(id.bytes), "sent_at": Int(sentAt), "distribution": Hex.encode(distribution.encoded),
        "member_identity_key": Hex.encode(alice.rawRepresentation),
        "distribution_content": Hex.encode(try Content(id: id, sentAt: sentAt, body: .senderKeyDistribution(distribution)).encoded()),
        "group_id": Hex.encode(groupID), "epoch": 1,
        "leave_content": Hex.encode(try Content(id: id, sentAt: sentAt, body: .groupLeave(groupID: groupID, epoch: 1)).encoded())]
    return [stateCase, tieBreak, envelopeCase, contents]
}

try write("group", source: "Hush generator (Sources/HushVectorGenerator) from fixed seeds", cases: try groupCases())

func largeGroupCases() throws -> [[String: Any]] {
    func identity(_ name: String) throws -> IdentityKeyPair {
        try IdentityKeyPair(seed: SecureBytes(copying: VectorSeeds.bytes("\(name)/identity", 32)))
    }
    let alice = try identity("alice"), bob = try identity("bob"), carol = try identity("carol")
    let groupID = VectorSeeds.bytes("large-group/id", 16)
    let state = try LargeGroupState(groupID: groupID, epoch: 3, secret: SecureBytes(copying: VectorSeeds.bytes("large-group/secret", 32)),
                                    name: "Open source meetup", members: [
                                        .init(identityKey: alice.publicKey, role: .admin), .init(identityKey: bob.publicKey, role: .member),
                                        .init(identityKey: carol.publicKey, role: .member)])
    let stateCase: [String: Any] = [
        "kind": "state", "comment": "a large state (content 0x15) of three members, alice the admin; every member's first chain key",
        "group_id": Hex.encode(groupID), "epoch": 3, "secret": Hex.encode(state.secret.copyBytes()), "name": state.name,
        "members": state.members.map { ["identity_key": Hex.encode($0.identityKey.rawRepresentation), "role": Int($0.role.rawValue)] },
        "encoded": Hex.encode(state.encoded), "digest": Hex.encode(state.digest), "envelope_key": Hex.encode(try state.envelopeKey().copyBytes()),
        "chain_keys": try state.initialChainKeys().map { ["identity_key": Hex.encode($0.member.rawRepresentation), "chain_key": Hex.encode($0.chainKey.copyBytes())] }]

    // Bob writes twice under his own chain; Carol reads with the chain she derived for him.
    let id = try MessageID(bytes: VectorSeeds.bytes("large-group/message-id", 16))
    let signingSeed = VectorSeeds.bytes("large-group/bob-signing", 32)
    let bobsChain = try LargeGroupChain(own: bob, in: state, signingSeed: SecureBytes(copying: signingSeed))
    let contents = try ["See you at 7.", "Room 2 this time."].map { try Content(id: id, sentAt: 1_767_225_600_000, body: .text($0)).encoded() }
    let messages = try contents.map { try bobsChain.encrypt($0) }
    let binding = MemberKeyBinding.sign(by: bob, groupID: groupID, epoch: 3, signingKey: bobsChain.signingKey!)
    let messageCase: [String: Any] = [
        "kind": "messages", "comment": "bob's first two messages (version 0x02): his signing key, its binding by his identity key; read by carol's chain for bob, in order",
        "state": Hex.encode(state.encoded), "sender_identity_seed": VectorSeeds.hex("bob/identity", 32), "signing_seed": Hex.encode(signingSeed),
        "signing_key": Hex.encode(bobsChain.signingKey!.rawRepresentation), "binding": Hex.encode(binding),
        "contents": contents.map(Hex.encode), "messages": messages.map(Hex.encode)]

    // What carol's chain for bob must refuse.
    var badBinding = messages[0]
    let carolsBinding = MemberKeyBinding.sign(by: carol, groupID: groupID, epoch: 3, signingKey: bobsChain.signingKey!)
    badBinding.replaceSubrange(SenderKeyWire.headLength + 32 ..< LargeGroupMessageHead.length, with: carolsBinding)
    var alteredBody = messages[0]
    alteredBody[LargeGroupMessageHead.length + 5] ^= 0x01
    let secondKey = try LargeGroupChain(own: bob, in: state, signingSeed: SecureBytes(copying: VectorSeeds.bytes("large-group/bob-signing-2", 32)))
    let second = try secondKey.encrypt(contents[1])
    let carolsChain = try LargeGroupChain(own: carol, in: state, signingSeed: SecureBytes(copying: VectorSeeds.bytes("large-group/carol-signing", 32)))
    let fromCarol = try carolsChain.encrypt(contents[0])
    func refused(_ comment: String, _ message: [UInt8], _ error: String, after first: Bool = false) -> [String: Any] {
        ["kind": "refused", "comment": comment, "state": Hex.encode(state.encoded), "member": Hex.encode(bob.publicKey.rawRepresentation),
         "read_first": first ? Hex.encode(messages[0]) : "", "message": Hex.encode(message), "error": error]
    }
    // Carol, who derives bob's chain like every member, writes as bob with a key of her own, bound by her.
    let carolsSeed = SecureBytes(copying: VectorSeeds.bytes("large-group/carol-as-bob", 32))
    let carolsKey = try Ed25519.PrivateKey(seed: carolsSeed).publicKey
    let impersonation = try LargeGroupChain(impersonating: bob.publicKey, in: state, signingSeed: carolsSeed,
                                            binding: MemberKeyBinding.sign(by: carol, groupID: groupID, epoch: 3, signingKey: carolsKey))
        .encrypt(contents[0])
    // The two contents of §18.4: the state as alice sends it, and a rekey request for its epoch.
    let contentID = try MessageID(bytes: VectorSeeds.bytes("large-group/content-id", 16))
    let contentCase: [String: Any] = [
        "kind": "content", "comment": "content 0x15 carrying the state, and a rekey request 0x16 for its group and epoch",
        "state": Hex.encode(state.encoded), "message_id": Hex.encode(contentID.bytes), "sent_at": 1_767_225_600_000,
        "update_content": Hex.encode(try Content(id: contentID, sentAt: 1_767_225_600_000, body: .largeGroupUpdate(state)).encoded()),
        "rekey_content": Hex.encode(try Content(id: contentID, sentAt: 1_767_225_600_000,
                                                body: .largeGroupRekey(groupID: groupID, epoch: 3)).encoded())]
    return [stateCase, messageCase, contentCase,
            refused("carol writing as bob: his derived chain, her own signing key, bound by her", impersonation, "invalidSignature"),
            refused("bob's message with carol's binding of his signing key", badBinding, "invalidSignature"),
            refused("bob's message with one bit of its body flipped", alteredBody, "invalidSignature"),
            refused("carol's message, read by the chain for bob", fromCarol, "senderMismatch"),
            refused("a second signing key for bob in the same state, after his first opened", second, "senderMismatch", after: true),
            refused("bob's first message again, after it opened", messages[0], "decryptionFailed", after: true)]
}

try write("large-group", source: "Hush generator (Sources/HushVectorGenerator) from fixed seeds; PROTOCOL.md §18.4",
          cases: try largeGroupCases())

// MARK: Addresses.

func addressCases() throws -> [[String: Any]] {
    var cases: [[String: Any]] = []
    for name in ["alice", "bob"] {
        let identity = try IdentityKeyPair(seed: SecureBytes(copying: VectorSeeds.bytes("\(name)/identity", 32)))
        cases.append(["comment": "\(name)'s address", "identity_seed": Hex.encode(identity.seed.copyBytes()),
                      "identity_key": Hex.encode(identity.publicKey.rawRepresentation), "address": identity.address.description])
    }
    let alice = try IdentityKeyPair(seed: SecureBytes(copying: VectorSeeds.bytes("alice/identity", 32)))
    let good = alice.address.description
    var typo = Array(good); typo[20] = typo[20] == "q" ? "p" : "q"
    let data = { (bytes: [UInt8]) in Bech32Encoding.encode(hrp: "hush", bytes: bytes) }
    for (comment, text, problem) in [
        ("one character changed", String(typo), "badChecksum"),
        ("mixed case", "HUSH" + good.dropFirst(4), "mixedCase"),
        ("another prefix", Bech32Encoding.encode(hrp: "hash", bytes: [0x01] + alice.publicKey.rawRepresentation), "wrongPrefix"),
        ("31-byte key", data([0x01] + alice.publicKey.rawRepresentation.dropLast()), "wrongLength"),
        ("version 0x02", data([0x02] + alice.publicKey.rawRepresentation), "unsupportedVersion"),
        ("small-order identity key", data([0x01, 0x01] + [UInt8](repeating: 0, count: 31)), "invalidKey"),
    ] {
        cases.append(["comment": comment, "address": text, "error": problem])
    }
    return cases
}

try write("address", source: "Hush generator (Sources/HushVectorGenerator) from fixed seeds", cases: try addressCases())

// MARK: Safety numbers.

func safetyNumberCase() throws -> [String: Any] {
    let alice = try IdentityKeyPair(seed: SecureBytes(copying: VectorSeeds.bytes("alice/identity", 32)))
    let bob = try IdentityKeyPair(seed: SecureBytes(copying: VectorSeeds.bytes("bob/identity", 32)))
    let a = SafetyNumber(local: alice.publicKey, remote: bob.publicKey), b = SafetyNumber(local: bob.publicKey, remote: alice.publicKey)
    return ["comment": "key = Ed25519 identity key, stable id = UTF-8 address, 5200 iterations, scannable version 2",
            "alice_identity_seed": Hex.encode(alice.seed.copyBytes()), "bob_identity_seed": Hex.encode(bob.seed.copyBytes()),
            "alice_identity_key": Hex.encode(alice.publicKey.rawRepresentation), "bob_identity_key": Hex.encode(bob.publicKey.rawRepresentation),
            "alice_address": alice.address.description, "bob_address": bob.address.description,
            "displayed": a.digits, "displayed_grouped": a.grouped,
            "alice_scannable": Hex.encode(a.scannable.serialized()), "bob_scannable": Hex.encode(b.scannable.serialized())]
}

try write("safety-number", source: "Hush generator (Sources/HushVectorGenerator) from fixed seeds", cases: [try safetyNumberCase()])

// MARK: libsignal's fingerprint vectors, transcribed.

// MARK: Backup archives (§19).
/// The archive of format `version` from fixed seeds: two tables, a 1000-byte
/// attachment blob and an empty one, and from version 2 a file that is not a
/// blob (`3.part`, sealed where the blobs travel in the clear).
func backupCase(version: UInt16) throws -> [String: Any] {
    let key = VectorSeeds.bytes("backup/recovery-key", 32)
    let seed = VectorSeeds.bytes("backup/identity-seed", 32)
    let salt = VectorSeeds.bytes("backup/salt", 32)
    let streamHeader = VectorSeeds.bytes("backup/stream-header", 24)
    let createdAt: UInt64 = 1_795_000_000_000
    let file = (0..<1_000).map { UInt8($0 % 251) }
    var files: [(path: String, bytes: [UInt8])] = [(path: "1.blob", bytes: file), (path: "2.blob", bytes: [])]
    if version >= 2 { files.append((path: "3.part", bytes: (0..<50).map { UInt8($0 * 3 % 256) })) }
    let (archive, records) = try BackupVectorArchive.bytes(
        identitySeed: seed, identityCreatedAt: 1_790_000_000, recoveryKey: key, createdAt: createdAt, salt: salt,
        streamHeader: streamHeader, schemaVersion: 21,
        tables: [
            .init(name: "contacts", columns: ["id", "name", "identity_key", "verified_at"],
                  rows: [[Int64(1), "bob", VectorSeeds.bytes("backup/bob", 32), Double(1_790_000_100.5)],
                         [Int64(2), "carol", VectorSeeds.bytes("backup/carol", 32), nil]]),
            .init(name: "settings", columns: ["name", "value"], rows: [["profile.name", "alice"]]),
        ],
        files: files, version: version)
    let identity = try IdentityKeyPair(seed: SecureBytes(copying: seed))
    var result: [String: Any] = [
        "comment": version == 1 ? "format version 1: two tables, a 1000-byte file and an empty one"
            : "format version 2, the same seeds: the blobs' bytes in the clear (record type 7), 3.part sealed (type 6)",
        "version": Int(version),
        "recovery_key": Hex.encode(key),
        "recovery_key_text": BackupVectorArchive.recoveryKeyText(key),
        "identity_key": Hex.encode(identity.publicKey.rawRepresentation), "created_at": Int(createdAt),
        "archive": Hex.encode(archive),
        "records": records.map { ["type": Int($0.type), "body": Hex.encode($0.body)] }]
    if version >= 2 { result["refused"] = try backupRefusedVariants(archive, key: key) }
    return result
}

/// Archives a version-2 reader must refuse, each made from `archive` (§19.3):
/// records taken apart by their lengths and put together wrongly.
func backupRefusedVariants(_ archive: [UInt8], key: [UInt8]) throws -> [[String: Any]] {
    let header = Array(archive[0..<138])
    var records: [[UInt8]] = []
    var offset = 138
    while offset < archive.count {
        let length = archive[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
        let clear = archive[offset + 4..<offset + 8].reduce(0) { $0 << 8 | Int($1) }
        records.append(Array(archive[offset..<offset + 8 + length + clear]))
        offset += 8 + length + clear
    }
    // Records: identity, store version, table, row, row, table, row, file 1.blob, its clear data, file 2.blob, file 3.part, its data, end.
    guard records.count == 13, records[8][4..<8] != [0, 0, 0, 0] else { throw VectorFailure("backup vector: unexpected records") }
    func joined(_ list: [[UInt8]]) -> String { Hex.encode(header + list.flatMap { $0 }) }
    var swapped = records
    swapped.swapAt(3, 4)
    var dropped = records
    dropped.remove(at: 4)
    var repeated = records
    repeated.insert(records[4], at: 4)
    var alteredClear = records
    alteredClear[8][alteredClear[8].count - 1] ^= 0x01
    var movedClear = records
    // On disk: frame (8) || sealed chunk (an empty body: 1 + 17) || clear bytes; here the clear bytes come first.
    let sealedEnd = 8 + 1 + SecretStream.overhead
    movedClear[8] = Array(records[8][0..<8]) + Array(records[8][sealedEnd...]) + Array(records[8][8..<sealedEnd])
    var wrongKey = key
    wrongKey[0] ^= 0x01
    return [
        ["what": "two rows swapped", "archive": joined(swapped), "recovery_key": Hex.encode(key)],
        ["what": "a row dropped", "archive": joined(dropped), "recovery_key": Hex.encode(key)],
        ["what": "a row repeated", "archive": joined(repeated), "recovery_key": Hex.encode(key)],
        ["what": "cut before the end record", "archive": joined(Array(records.dropLast())), "recovery_key": Hex.encode(key)],
        ["what": "cut inside the clear bytes", "archive": Hex.encode(header + records[0..<8].flatMap { $0 } + records[8].dropLast(1)),
         "recovery_key": Hex.encode(key)],
        ["what": "a clear byte changed", "archive": joined(alteredClear), "recovery_key": Hex.encode(key)],
        ["what": "the clear bytes and the sealed chunk exchanged in place", "archive": joined(movedClear), "recovery_key": Hex.encode(key)],
        ["what": "a wrong recovery key", "archive": joined(records), "recovery_key": Hex.encode(wrongKey)],
    ]
}
try write("backup", source: "Hush generator (Sources/HushVectorGenerator) with HushKit's archive writer; the suite reads it from PROTOCOL.md §19 alone",
          cases: [try backupCase(version: 1), try backupCase(version: 2)])

// MARK: Linked devices (§20): device lists and link codes.

/// A device of the vector account: its key from a fixed seed.
func vectorDevice(_ name: String) throws -> Ed25519.PrivateKey {
    try Ed25519.PrivateKey(seed: SecureBytes(copying: VectorSeeds.bytes("devices/\(name)", 32)))
}

func deviceListCases() throws -> [[String: Any]] {
    let account = try IdentityKeyPair(seed: SecureBytes(copying: VectorSeeds.bytes("devices/account", 32)))
    let accountKey = Hex.encode(account.publicKey.rawRepresentation)
    let t0: UInt64 = 1_795_000_000_000
    let phone = try vectorDevice("phone"), laptop = try vectorDevice("laptop"), server = try vectorDevice("server")
    func linking(_ device: Ed25519.PrivateKey, _ name: String, at time: UInt64) throws -> DeviceListEntry {
        try DeviceListEntry.linking(device, to: account.publicKey, name: name, addedAt: time)
    }
    let phoneEntry = try linking(phone, "phone", at: t0)
    let laptopEntry = try linking(laptop, "laptop 💻", at: t0 + 60_000)
    let serverEntry = try linking(server, "build server", at: t0 + 120_000)
    let laptopRevoked = laptopEntry.revoked(at: t0 + 180_000)

    // build: three devices, one revoked, signed by the phone.
    let built = try DeviceList.sign(account: account, counter: 3, createdAt: t0 + 180_000, signer: phone,
                                    entries: [phoneEntry, laptopRevoked, serverEntry])
    func deviceFields(_ name: String, _ device: Ed25519.PrivateKey, _ entry: DeviceListEntry) -> [String: Any] {
        var fields: [String: Any] = ["device_seed": VectorSeeds.hex("devices/\(name)", 32), "name": entry.name, "added_at": Int(entry.addedAt),
                                     "state": entry.isActive ? "active" : "revoked",
                                     "device_key": Hex.encode(device.publicKey.rawRepresentation), "device_id": Hex.encode(entry.id.bytes),
                                     "proof": Hex.encode(entry.proof)]
        if !entry.isActive { fields["revoked_at"] = Int(entry.revokedAt) }
        if entry.keepsAccountKey { fields["keeps_account_key"] = true }
        return fields
    }
    let build: [String: Any] = [
        "kind": "build", "comment": "three devices, the laptop revoked, signed by the phone; devices listed here in the order given, the list sorts them by id",
        "account_identity_seed": VectorSeeds.hex("devices/account", 32), "account_identity_key": accountKey,
        "counter": 3, "created_at": Int(t0 + 180_000), "signer": 0,
        "devices": [deviceFields("phone", phone, phoneEntry), deviceFields("laptop", laptop, laptopRevoked),
                    deviceFields("server", server, serverEntry)],
        "body": Hex.encode(Array(built.encoded.dropLast(128))), "account_signature": Hex.encode(Array(built.encoded.suffix(128).prefix(64))),
        "signer_signature": Hex.encode(Array(built.encoded.suffix(64))), "list": Hex.encode(built.encoded),
        "fingerprint": built.fingerprint.digits, "fingerprint_grouped": built.fingerprint.grouped]

    // build: the phone, which keeps the account key (§20.13), revoked by the laptop: the account key is retired.
    let phoneKeeping = phoneEntry.keepingAccountKey(), phoneRetired = phoneEntry.keepingAccountKey().revoked(at: t0 + 120_000)
    let retiring = try DeviceList.sign(account: account, counter: 3, createdAt: t0 + 120_000, signer: laptop,
                                       entries: [phoneRetired, laptopEntry])
    let buildRetiring: [String: Any] = [
        "kind": "build", "comment": "two devices: the phone, which keeps the account key (state 0x82: revoked, with the account key's bit), revoked by the laptop",
        "account_identity_seed": VectorSeeds.hex("devices/account", 32), "account_identity_key": accountKey,
        "counter": 3, "created_at": Int(t0 + 120_000), "signer": 1,
        "devices": [deviceFields("phone", phone, phoneRetired), deviceFields("laptop", laptop, laptopEntry)],
        "body": Hex.encode(Array(retiring.encoded.dropLast(128))), "account_signature": Hex.encode(Array(retiring.encoded.suffix(128).prefix(64))),
        "signer_signature": Hex.encode(Array(retiring.encoded.suffix(64))), "list": Hex.encode(retiring.encoded),
        "fingerprint": retiring.fingerprint.digits, "fingerprint_grouped": retiring.fingerprint.grouped]

    func signed(_ counter: UInt64, by signer: Ed25519.PrivateKey = phone, _ entries: [DeviceListEntry]) throws -> DeviceList {
        try DeviceList.sign(account: account, counter: counter, createdAt: t0 + counter * 60_000, signer: signer, entries: entries)
    }
    func step(_ comment: String, _ bytes: [UInt8], _ result: String, fingerprint: DeviceList? = nil) -> [String: Any] {
        var fields: [String: Any] = ["comment": comment, "list": Hex.encode(bytes), "result": result]
        if let fingerprint { fields["fingerprint"] = fingerprint.fingerprint.digits }
        return fields
    }
    // history: what a contact sees over the account's life.
    let one = try signed(1, [phoneEntry])
    let two = try signed(2, [phoneEntry, laptopEntry])
    let three = try signed(3, [phoneEntry, laptopRevoked])
    let comeback = try vectorDevice("laptop-again")
    let four = try signed(4, [try phoneEntry.renamed("old phone"), laptopRevoked, serverEntry])
    let history: [String: Any] = ["kind": "sequence", "comment": "one account's lists in order, with the replays and forgeries a contact must refuse",
                                  "account_identity_key": accountKey, "steps": [
        step("the first list: the phone", one.encoded, "accepted", fingerprint: one),
        step("the laptop linked", two.encoded, "accepted", fingerprint: two),
        step("the same list again", two.encoded, "unchanged", fingerprint: two),
        step("the first list replayed", one.encoded, "notNewer", fingerprint: two),
        step("the laptop revoked", three.encoded, "accepted", fingerprint: three),
        step("the list that linked the laptop, replayed", two.encoded, "notNewer", fingerprint: three),
        step("a newer list making the laptop active again", try signed(4, [phoneEntry, laptopEntry]).encoded, "unrevoked"),
        step("a newer list leaving the revoked laptop out", try signed(4, [phoneEntry]).encoded, "droppedDevice"),
        step("a newer list changing the date the laptop was linked", try signed(4, [phoneEntry, try linking(laptop, "laptop 💻", at: t0 + 1).revoked(at: t0 + 180_000)]).encoded,
             "changedDevice"),
        step("the revoked laptop, with the account key it kept, links a new key of its own",
             try signed(4, by: laptop, [phoneEntry, laptopRevoked, try linking(comeback, "laptop", at: t0 + 240_000)]).encoded, "signerNotActive"),
        step("the same, signed by the new key", try signed(4, by: comeback, [phoneEntry, laptopRevoked, try linking(comeback, "laptop", at: t0 + 240_000)]).encoded,
             "signerNotActive"),
        step("the phone renamed, the server linked", four.encoded, "accepted", fingerprint: four),
    ]]

    // The device that keeps the account key: marked once, never moved or dropped, and its revocation retires the key.
    func keyStep(_ comment: String, _ bytes: [UInt8], _ result: String, keeper: String? = nil, retired: Bool = false) -> [String: Any] {
        var fields = step(comment, bytes, result)
        if result == "accepted" {
            fields["account_key_device"] = keeper.map { $0 == "phone" ? Hex.encode(phoneEntry.id.bytes) : Hex.encode(laptopEntry.id.bytes) } ?? ""
            fields["account_key_retired"] = retired
        }
        return fields
    }
    let markedOnArrival: [String: Any] = ["kind": "sequence", "comment": "a list from before the mark, then one marking a device it adds: refused (the mark first appears on a device already listed)",
                                          "account_identity_key": accountKey, "steps": [
        keyStep("list 1: the phone", one.encoded, "accepted"),
        keyStep("list 2 adds the laptop and marks it", try signed(2, [phoneEntry, laptopEntry.keepingAccountKey()]).encoded, "changedDevice"),
        keyStep("list 2 adds the laptop and marks the phone", try signed(2, [phoneKeeping, laptopEntry]).encoded, "accepted", keeper: "phone"),
    ]]
    let keeper: [String: Any] = ["kind": "sequence", "comment": "the device that keeps the account key (§20.2, §20.3 steps 6 and 9c, §20.13, §20.14): "
        + "account_key_device is the marked entry's id after an accepted step (empty: none), account_key_retired whether it is revoked",
                                     "account_identity_key": accountKey, "steps": [
        keyStep("list 1, from before the mark: no device keeps the account key", one.encoded, "accepted"),
        keyStep("list 2 marks the phone (a list without a mark may gain one)", try signed(2, [phoneKeeping, laptopEntry]).encoded, "accepted", keeper: "phone"),
        keyStep("both marked", DeviceList.signedBytes(body: DeviceList.encodeBody(account: account.publicKey, counter: 3, createdAt: t0 + 180_000,
                                                                                 signer: phoneEntry.id,
                                                                                 entries: [phoneKeeping, laptopEntry.keepingAccountKey()].sorted { $0.id < $1.id }),
                                                  account: account, signer: phone), "accountKeyTwice"),
        keyStep("the mark moved to the laptop", try signed(3, by: laptop, [phoneEntry, laptopEntry.keepingAccountKey()]).encoded, "changedDevice"),
        keyStep("the mark dropped", try signed(3, [phoneEntry, laptopEntry]).encoded, "changedDevice"),
        keyStep("the laptop revokes the phone, which keeps its mark: the account key is retired", retiring.encoded, "accepted",
                keeper: "phone", retired: true),
    ]]

    // refusals: lists refused on their own, each signed with both keys so only its rule fails.
    func crafted(counter: UInt64 = 1, signer: Ed25519.PrivateKey = phone, _ entries: [DeviceListEntry], extra: [UInt8] = [],
                 edit: (inout [UInt8]) -> Void = { _ in }) -> [UInt8] {
        var body = DeviceList.encodeBody(account: account.publicKey, counter: counter, createdAt: t0, signer: DeviceID(deviceKey: signer.publicKey),
                                         entries: entries) + extra
        edit(&body)
        return DeviceList.signedBytes(body: body, account: account, signer: signer)
    }
    func entry(_ base: DeviceListEntry, id: DeviceID? = nil, key: Ed25519.PublicKey? = nil, state: DeviceListEntry.State? = nil,
               revokedAt: UInt64? = nil, name: String? = nil, proof: [UInt8]? = nil) -> DeviceListEntry {
        DeviceListEntry(unchecked: id ?? base.id, key: key ?? base.key, addedAt: base.addedAt, state: state ?? base.state,
                        revokedAt: revokedAt ?? base.revokedAt, name: name ?? base.name, proof: proof ?? base.proof)
    }
    let sorted = { (entries: [DeviceListEntry]) in entries.sorted { $0.id < $1.id } }
    let good = crafted([phoneEntry])
    let other = try IdentityKeyPair(seed: SecureBytes(copying: VectorSeeds.bytes("devices/other-account", 32)))
    let otherList = try DeviceList.sign(account: other, counter: 1, createdAt: t0, signer: phone, entries: [
        try DeviceListEntry.linking(phone, to: other.publicKey, name: "phone", addedAt: t0)])
    var versionTwo = good; versionTwo[0] = 0x02
    var badAccountSignature = good; badAccountSignature[good.count - 128] ^= 0x01
    var badSignerSignature = good; badSignerSignature[good.count - 1] ^= 0x01
    let smallOrder = try Ed25519.PublicKey(rawRepresentation: [0x01] + [UInt8](repeating: 0, count: 31))
    let accountAsDevice = entry(phoneEntry, id: DeviceID(deviceKey: account.publicKey.signingKey), key: account.publicKey.signingKey,
                                proof: account.signingKey.signature(for: DeviceListEntry.proofTranscript(account: account.publicKey,
                                                                                                         deviceKey: account.publicKey.signingKey)))
    let seventeen = try (0..<17).map { try linking(try vectorDevice("many/\($0)"), "device \($0)", at: t0) }
    let ordered = sorted([phoneEntry, laptopEntry])
    let foreignProof = try DeviceListEntry.linking(laptop, to: other.publicKey, name: "laptop", addedAt: t0 + 60_000)
    let refusals: [String: Any] = ["kind": "sequence", "comment": "lists refused on their own (§20.3 steps 1-8), in the order of the rules; then one accepted",
                                   "account_identity_key": accountKey, "steps": [
        step("version 0x02", versionTwo, "unsupportedVersion"),
        step("cut to 193 bytes, one short of a header and two signatures", Array(good.prefix(DeviceLimits.minimumListLength - 1)), "truncated"),
        step("25 027 bytes, one more than the longest list", good + [UInt8](repeating: 0, count: DeviceLimits.maximumListLength + 1 - good.count),
             "tooLong"),
        step("another account's list", otherList.encoded, "wrongAccount"),
        step("the account signature with one bit flipped", badAccountSignature, "badSignature"),
        step("a count of 129", crafted([phoneEntry]) { $0[DeviceLimits.headerLength - 1] = 129 }, "tooManyDevices"),
        step("the account key listed as a device", crafted(sorted([phoneEntry, accountAsDevice])), "badDeviceKey"),
        step("a small-order device key", crafted(sorted([phoneEntry, entry(phoneEntry, id: DeviceID(deviceKey: smallOrder), key: smallOrder)])),
             "badDeviceKey"),
        step("the phone's key under the laptop's id", crafted([entry(phoneEntry, id: laptopEntry.id)]), "badDeviceID"),
        step("the phone twice", crafted([phoneEntry, phoneEntry]), "duplicateDevice"),
        step("two devices out of order", crafted([ordered[1], ordered[0]]), "notCanonical"),
        step("active with a revocation time", crafted([entry(phoneEntry, revokedAt: t0 + 1)]), "badState"),
        step("revoked before it was added", crafted(sorted([phoneEntry, entry(laptopEntry, state: .revoked, revokedAt: t0)])), "badState"),
        step("state 0x03", crafted([phoneEntry]) { $0[DeviceLimits.headerLength + 16 + 32 + 8] = 0x03 }, "badState"),
        step("state 0x80: the account key's bit without a state", crafted([phoneEntry]) { $0[DeviceLimits.headerLength + 16 + 32 + 8] = 0x80 }, "badState"),
        step("state 0x83", crafted([phoneEntry]) { $0[DeviceLimits.headerLength + 16 + 32 + 8] = 0x83 }, "badState"),
        step("state 0x41", crafted([phoneEntry]) { $0[DeviceLimits.headerLength + 16 + 32 + 8] = 0x41 }, "badState"),
        step("a name of 65 bytes", crafted([entry(phoneEntry, name: String(repeating: "n", count: 65))]), "nameTooLong"),
        step("an empty name", crafted([entry(phoneEntry, name: "")]), "badName"),
        step("a name with an escape sequence", crafted([entry(phoneEntry, name: "phone\u{1B}[2J")]), "badName"),
        step("a name with a right-to-left override", crafted([entry(phoneEntry, name: "photo\u{202E}gpj.exe")]), "badName"),
        step("a name that is not UTF-8", crafted([entry(phoneEntry, name: "ab")]) { $0[DeviceLimits.headerLength + 66] = 0xC3; $0[DeviceLimits.headerLength + 67] = 0x28 },
             "badName"),
        step("a byte after the last device", crafted([phoneEntry], extra: [0x00]), "trailingBytes"),
        step("seventeen active devices", crafted(signer: try vectorDevice("many/0"), sorted(seventeen)), "tooManyDevices"),
        step("no device", crafted([]), "noActiveDevice"),
        step("the only device revoked", crafted([phoneEntry.revoked(at: t0 + 1)]), "noActiveDevice"),
        step("two devices keep the account key", crafted(sorted([phoneKeeping, laptopEntry.keepingAccountKey()])), "accountKeyTwice"),
        step("the laptop's key with the proof it made for another account", crafted(sorted([phoneEntry, foreignProof])), "badProof"),
        step("signed by a device it does not list", crafted(signer: laptop, [phoneEntry]), "unknownSigner"),
        step("the signer signature with one bit flipped", badSignerSignature, "badSignerSignature"),
        step("counter 0", crafted(counter: 0, [phoneEntry]), "notNewer"),
        step("the phone alone, counter 1: accepted", good, "accepted"),
    ]]
    return [build, history, refusals, buildRetiring, keeper, markedOnArrival]
}

try write("device-list", source: "Hush generator (Sources/HushVectorGenerator) from fixed seeds; PROTOCOL.md §20.1-§20.4",
          cases: try deviceListCases())

func deviceDirectoryCases() throws -> [[String: Any]] {
    let account = try IdentityKeyPair(seed: SecureBytes(copying: VectorSeeds.bytes("devices/account", 32)))
    let other = try IdentityKeyPair(seed: SecureBytes(copying: VectorSeeds.bytes("devices/other-account", 32)))
    let t0: UInt64 = 1_795_000_000_000
    let phone = try vectorDevice("phone"), laptop = try vectorDevice("laptop")
    let phoneEntry = try DeviceListEntry.linking(phone, to: account.publicKey, name: "phone", addedAt: t0)
    let laptopEntry = try DeviceListEntry.linking(laptop, to: account.publicKey, name: "laptop 💻", addedAt: t0 + 60_000)
    let list = try DeviceList.sign(account: account, counter: 2, createdAt: t0 + 60_000, signer: phone, entries: [phoneEntry, laptopEntry])
    let directory = try DeviceDirectory(account: account.publicKey)
    let writer = try DeviceDirectory.Writer(account: account)
    let nonce = VectorSeeds.bytes("directory/nonce", 24)
    let record = try directory.seal(list, nonce: nonce)
    let put = DeviceDirectory.putMessage(name: directory.name, counter: list.counter, record: record)
    let directoryCase: [String: Any] = [
        "kind": "directory", "comment": "an account's directory: its blinded name, record key, a record of its list of two devices, and a signed write",
        "account_identity_seed": VectorSeeds.hex("devices/account", 32), "account_identity_key": Hex.encode(account.publicKey.rawRepresentation),
        "blinding_factor": Hex.encode(Ed25519Blinding.factor(label: Labels.directoryBlind, publicKey: account.publicKey.signingKey)),
        "name": Hex.encode(directory.name.rawRepresentation), "key": Hex.encode(directory.recordKey.copyBytes()),
        "list": Hex.encode(list.encoded), "counter": Int(list.counter), "nonce": Hex.encode(nonce), "record": Hex.encode(record),
        "put": Hex.encode(put), "put_signature": Hex.encode(writer.signPut(counter: list.counter, record: record))]

    func refused(_ comment: String, _ record: [UInt8], counter: UInt64 = 2, _ error: String) -> [String: Any] {
        ["kind": "refused", "comment": comment, "account_identity_key": Hex.encode(account.publicKey.rawRepresentation),
         "record": Hex.encode(record), "counter": Int(counter), "error": error]
    }
    var padded = list.encoded + [0x80]
    padded += [UInt8](repeating: 0, count: (padded.count + 1023) / 1024 * 1024 - padded.count)
    var flipped = record
    flipped[flipped.count / 2] ^= 0x01
    let otherList = try DeviceList.sign(account: other, counter: 2, createdAt: t0, signer: phone,
                                        entries: [try DeviceListEntry.linking(phone, to: other.publicKey, name: "phone", addedAt: t0)])
    var otherPadded = otherList.encoded + [0x80]
    otherPadded += [UInt8](repeating: 0, count: (otherPadded.count + 1023) / 1024 * 1024 - otherPadded.count)
    var markerLost = padded
    markerLost[list.encoded.count] = 0x00
    let refusals: [[String: Any]] = [
        refused("version 0x02", [0x02] + record.dropFirst(), "unsupportedVersion"),
        refused("one byte short", Array(record.dropLast()), "wrongLength"),
        refused("one bit flipped in the sealed list", flipped, "notOpened"),
        refused("another account's record: sealed under its own key", try DeviceDirectory(account: other.publicKey).seal(otherList, nonce: nonce), "notOpened"),
        refused("the list with its 0x80 marker cleared", try directory.sealPadded(markerLost, nonce: nonce), "badPadding"),
        refused("the list padded one block too far", try directory.sealPadded(padded + [UInt8](repeating: 0, count: 1024), nonce: nonce), "badPadding"),
        refused("another account's list sealed under this account's key", try directory.sealPadded(otherPadded, nonce: nonce), "wrongAccount"),
        refused("the relay gives counter 3 with the list of counter 2", record, counter: 3, "counterMismatch"),
    ]

    // A device prekey message's inner plaintext (§20.10): the laptop starts a session.
    let certificate = DeviceCertificate(account: account, device: laptop.publicKey)
    let ephemeral = try X25519.PrivateKey(rawRepresentation: SecureBytes(copying: VectorSeeds.bytes("directory/handshake-ephemeral", 32)))
    let handshake = try HandshakeInit(ephemeralKey: ephemeral.publicKey, signedPrekeyID: 1, oneTimePrekeyID: 7, kemPrekeyKind: .lastResortKEM,
                                      kemPrekeyID: 2, kemCiphertext: VectorSeeds.long("directory/kem-ciphertext", 1088))
    let ratchet = VectorSeeds.long("directory/ratchet-message", 352)
    let opened = OpenedEnvelope(sender: IdentityKey(laptop.publicKey), handshake: handshake, ratchetMessage: ratchet, deviceCertificate: certificate)
    var forged = opened.encoded
    forged[1 + 32 + 32] ^= 0x01
    let certificateCase: [String: Any] = [
        "kind": "device_prekey_message", "comment": "the laptop's first message to a contact device: its key, its account, the account's certificate, then a handshake init and a ratchet message (placeholder bytes: only the layout is checked)",
        "account_identity_seed": VectorSeeds.hex("devices/account", 32), "device_seed": VectorSeeds.hex("devices/laptop", 32),
        "device_key": Hex.encode(laptop.publicKey.rawRepresentation), "certificate": Hex.encode(certificate.signature),
        "handshake_init": Hex.encode(handshake.encoded), "ratchet_message": Hex.encode(ratchet), "inner": Hex.encode(opened.encoded),
        "forged_inner": Hex.encode(forged), "forged_error": "malformed"]
    return [directoryCase] + refusals + [certificateCase]
}

try write("device-directory", source: "Hush generator (Sources/HushVectorGenerator) from fixed seeds and nonces; PROTOCOL.md §20.9-§20.10",
          cases: try deviceDirectoryCases())

func linkCodeCases() throws -> [[String: Any]] {
    func codeCase(_ comment: String, label: String, relay: String) throws -> [String: Any] {
        let secret = VectorSeeds.bytes("link/\(label)/secret", 32)
        let code = try LinkCode(secret: SecureBytes(copying: secret), relay: relay)
        let keys = try code.keys()
        let newPrivate = VectorSeeds.bytes("link/\(label)/new-ephemeral", 32), existingPrivate = VectorSeeds.bytes("link/\(label)/existing-ephemeral", 32)
        let new = try X25519.PrivateKey(rawRepresentation: SecureBytes(copying: newPrivate))
        let existing = try X25519.PrivateKey(rawRepresentation: SecureBytes(copying: existingPrivate))
        let hello = keys.hello(new.publicKey), welcome = keys.welcome(existing.publicKey, answering: hello)
        let channel = try keys.channel(own: existing, peer: new.publicKey, newDevice: new.publicKey, existingDevice: existing.publicKey)
        let account = try IdentityKeyPair(seed: SecureBytes(copying: VectorSeeds.bytes("devices/account", 32)))
        let plaintext = [UInt8(0x03)] + account.publicKey.rawRepresentation
        let text = code.displayText
        let typed = [text.lowercased(), text.replacingOccurrences(of: "-", with: " "),
                     text.replacingOccurrences(of: "0", with: "O").replacingOccurrences(of: "1", with: "l")]
        return ["kind": "code", "comment": comment, "secret": Hex.encode(secret), "relay": relay,
                "bytes": Hex.encode(code.bytes), "text": text, "typed": typed,
                "link_id": Hex.encode(keys.linkID), "auth_key": Hex.encode(keys.authenticationKey.copyBytes()),
                "mailbox_seed": Hex.encode(keys.mailboxSeed.copyBytes()),
                "mailbox_identity_key": Hex.encode(try keys.mailboxIdentity().publicKey.rawRepresentation),
                "mailbox_credential": Hex.encode(keys.mailboxCredential.copyBytes()),
                "hello_envelope": Hex.encode(try LinkEnvelope.wrap(hello, from: .newDevice)),
                "new_ephemeral_private": Hex.encode(newPrivate), "existing_ephemeral_private": Hex.encode(existingPrivate),
                "new_ephemeral_public": Hex.encode(new.publicKey.rawRepresentation),
                "existing_ephemeral_public": Hex.encode(existing.publicKey.rawRepresentation),
                "hello": Hex.encode(hello), "welcome": Hex.encode(welcome),
                "shared_secret": Hex.encode(try new.sharedSecret(with: existing.publicKey).copyBytes()),
                "new_to_existing_key": Hex.encode(channel.newToExisting.copyBytes()),
                "existing_to_new_key": Hex.encode(channel.existingToNew.copyBytes()),
                "archive_key": Hex.encode(channel.archiveKey.copyBytes()), "confirmation": channel.confirmation,
                "channel_message": ["comment": "the account message (type 0x03): the account identity key", "direction": "existing_to_new",
                                    "number": 0, "plaintext": Hex.encode(plaintext),
                                    "sealed": Hex.encode(try channel.seal(plaintext, from: .existingToNew, number: 0))] as [String: Any]]
    }
    let withRelay = try codeCase("a code naming the relay", label: "1", relay: "https://relay.example.org")
    let withoutRelay = try codeCase("a code without a relay", label: "2", relay: "")
    let text = withRelay["text"] as! String
    var typo = Array(text)
    typo[5] = typo[5] == "Z" ? "Y" : "Z"
    func recoded(_ edit: (inout [UInt8]) -> Void) throws -> String {
        var payload = Array(try Hex.decode(withRelay["bytes"] as! String).dropLast(4))
        edit(&payload)
        let checksum = Array(SHA256.hash(Array("hush/v1/link-code".utf8) + [0x00] + payload).prefix(4))
        return CrockfordBase32.grouped(CrockfordBase32.encode(payload + checksum), size: 4)
    }
    func refused(_ comment: String, _ text: String, _ error: String) -> [String: Any] {
        ["kind": "refused", "comment": comment, "text": text, "error": error]
    }
    // 63 bytes are 101 characters, the last holding one padding bit: set it.
    let alphabet = Array("0123456789ABCDEFGHJKMNPQRSTVWXYZ".utf8)
    var badPadding = Array(CrockfordBase32.encode(try Hex.decode(withRelay["bytes"] as! String)))
    precondition(badPadding.count * 5 % 8 != 0)
    badPadding[badPadding.count - 1] = alphabet[alphabet.firstIndex(of: badPadding.last!)! | 1]
    // Characters dropped from the end until 5 or more bits would be left over.
    var short = Array(text.filter { $0 != "-" })
    repeat { short.removeLast() } while short.count * 5 % 8 < 5
    return [
        withRelay, withoutRelay,
        refused("a character outside the alphabet (U)", "U" + text.dropFirst(), "invalidCharacter"),
        refused("characters missing, so 5 or more bits are left over", String(short), "wrongLength"),
        refused("too short for a code", "0000-0000", "wrongLength"),
        refused("the last character's padding bits set", String(decoding: badPadding, as: UTF8.self), "badPadding"),
        refused("one character changed", String(typo), "badChecksum"),
        refused("version 0x02, its checksum right", try recoded { $0[0] = 0x02 }, "unsupportedVersion"),
        refused("a relay length past the end, its checksum right", try recoded { $0[33] = 200 }, "wrongLength"),
        refused("a space in the relay, its checksum right", try recoded { $0[$0.count - 1] = 0x20 }, "badRelay"),
    ]
}

try write("link-code", source: "Hush generator (Sources/HushVectorGenerator) from fixed secrets and ephemeral keys; PROTOCOL.md §20.5-§20.6",
          cases: try linkCodeCases())

let libsignalKeys = (alice: "0506863bc66d02b40d27b8d49ca7c09e9239236f9d7d25d6fcca5ce13c7064d868",
                     bob: "05f781b6fb32fed9ba1cf2de978d4d5da28dc34046ae814402b5c0dbd96fda907b")
func libsignalCase(_ version: Int, alice: String, bob: String) -> [String: Any] {
    ["comment": "fingerprint_test_v\(version)", "version": version, "iterations": 5200,
     "alice_identity_key": libsignalKeys.alice, "alice_stable_id": "+14152222222",
     "bob_identity_key": libsignalKeys.bob, "bob_stable_id": "+14153333333",
     "displayed": "300354477692869396892869876765458257569162576843440918079131",
     "alice_scannable": alice, "bob_scannable": bob]
}
try write("libsignal-fingerprint", suite: "libsignal-fingerprint",
          source: "signalapp/libsignal rust/protocol/src/fingerprint.rs (tests fingerprint_test_v1, fingerprint_test_v2, fingerprint_encodings), transcribed",
          cases: [
    libsignalCase(1, alice: "080112220a201e301a0353dce3dbe7684cb8336e85136cdc0ee96219494ada305d62a7bd61df1a220a20d62cbf73a11592015b6b9f1682ac306fea3aaf3885b84d12bca631e9d4fb3a4d",
                  bob: "080112220a20d62cbf73a11592015b6b9f1682ac306fea3aaf3885b84d12bca631e9d4fb3a4d1a220a201e301a0353dce3dbe7684cb8336e85136cdc0ee96219494ada305d62a7bd61df"),
    libsignalCase(2, alice: "080212220a201e301a0353dce3dbe7684cb8336e85136cdc0ee96219494ada305d62a7bd61df1a220a20d62cbf73a11592015b6b9f1682ac306fea3aaf3885b84d12bca631e9d4fb3a4d",
                  bob: "080212220a20d62cbf73a11592015b6b9f1682ac306fea3aaf3885b84d12bca631e9d4fb3a4d1a220a201e301a0353dce3dbe7684cb8336e85136cdc0ee96219494ada305d62a7bd61df"),
    ["comment": "fingerprint_encodings", "version": 2, "local_fingerprint": String(repeating: "12", count: 32),
     "remote_fingerprint": String(repeating: "ba", count: 32),
     "scannable": "080212220a20" + String(repeating: "12", count: 32) + "1a220a20" + String(repeating: "ba", count: 32)],
])

try pins.save()
print("wrote \(directory)")
