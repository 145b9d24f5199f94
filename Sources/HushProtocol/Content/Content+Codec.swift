import HushCrypto

/// Encoding and strict decoding of `Content` (layouts in docs/PROTOCOL.md, "Content"):
///
///     text (0x01):               length (2) || UTF-8 (1…32 768 bytes)
///     delivery receipt (0x02),
///     read receipt (0x03):       count (2: 1…256) || message ids (16 each)
///     typing started (0x04),
///     typing stopped (0x05):     empty
///     attachment (0x06):         key (32) || digest (32) || size (8) || blob id length (1: 1…64) || blob id
///                                || file name length (1) || file name (UTF-8)
///                                || media type length (1) || media type (UTF-8)
///     delivery credential (0x07): token (32)
///     profile (0x08):            length (1: 1…64) || display name (UTF-8)
///     decryption error (0x09):   envelope digest (32: SHA-256 of the sealed envelope)
///     group update (0x0A):       a group state (§18.2)
///     sender key distribution (0x0B): a signed distribution (153 bytes, version 0x02, §18.1)
///     group leave (0x0C):        group id (16) || epoch (4)
///     reply (0x0D):              quoted message id (16) || length (2) || UTF-8 (1…32 768 bytes)
///     reaction (0x0E):           message id (16) || length (1: 0…32) || emoji (UTF-8; empty = removal)
///     edit (0x0F):               edited message id (16) || length (2) || UTF-8 (1…32 768 bytes)
///     deletion (0x10):           message id (16)
///     disappearing timer (0x11): seconds (4: 0 = off, else 1…2 419 200)
///     expiring (0x12):           seconds (4: 1…2 419 200) || inner type (1: 0x01, 0x06 or 0x0D) || inner body
///     device list (0x13):        length (2: 194…25 026) || a signed device list (§20.2)
///     sent transcript (0x14):    recipient identity key (32) || a whole content (§20.11) of a type `canBeTranscribed`
///     large group update (0x15): a large group state (§18.4), to the end of the content
///     large group rekey (0x16):  group id (16) || epoch (4)
///     contacts (0x17):           count (2: 1…200) || contact records (`ContactRecord`), one per contact
///     recovery key (0x18):       device list counter (8: 1…2^63 − 1) || recovery key (32)
extension Content {
    public func encoded() throws(ProtocolError) -> [UInt8] {
        var out: [UInt8] = [Content.version, body.typeByte]
        out += id.bytes
        out.appendBigEndian(sentAt)
        try Content.encode(body, into: &out)
        return out
    }

    /// Appends `body` as its type lays it out (the type byte is the caller's).
    private static func encode(_ body: ContentBody, into out: inout [UInt8]) throws(ProtocolError) {
        switch body {
        case let .text(text):
            let utf8 = Array(text.utf8)
            guard (1...ContentLimits.maxTextLength).contains(utf8.count) else { throw .limitExceeded(what: "text") }
            out.appendBigEndian(UInt16(utf8.count))
            out += utf8
        case let .deliveryReceipt(ids), let .readReceipt(ids):
            guard (1...ContentLimits.maxReceiptIDs).contains(ids.count) else { throw .limitExceeded(what: "receipt") }
            out.appendBigEndian(UInt16(ids.count))
            for id in ids { out += id.bytes }
        case .typingStarted, .typingStopped:
            break
        case let .attachment(pointer):
            out += pointer.key.copyBytes()
            out += pointer.digest
            out.appendBigEndian(pointer.size)
            out.append(UInt8(pointer.blobID.count))
            out += pointer.blobID
            let name = Array(pointer.fileName.utf8)
            out.append(UInt8(name.count))
            out += name
            let mediaType = Array(pointer.mediaType.utf8)
            out.append(UInt8(mediaType.count))
            out += mediaType
        case let .deliveryCredential(token):
            guard token.count == ContentLimits.deliveryCredentialLength else { throw .malformed(what: "delivery credential") }
            out += token
        case let .profile(name):
            let utf8 = Array(name.utf8)
            guard (1...ContentLimits.maxDisplayNameLength).contains(utf8.count) else { throw .limitExceeded(what: "display name") }
            out.append(UInt8(utf8.count))
            out += utf8
        case let .decryptionError(digest):
            guard digest.count == ContentLimits.envelopeDigestLength else { throw .malformed(what: "envelope digest") }
            out += digest
        case let .groupUpdate(state):
            out += state.encoded
        case let .senderKeyDistribution(distribution):
            out += distribution.encoded
        case let .largeGroupUpdate(state):
            out += state.encoded
        case let .groupLeave(groupID, epoch), let .largeGroupRekey(groupID, epoch):
            guard groupID.count == SenderKeyWire.groupIDLength else { throw .malformed(what: "group id") }
            out += groupID
            out.appendBigEndian(epoch)
        case let .reply(quoted, text), let .edit(quoted, text):
            let utf8 = Array(text.utf8)
            guard (1...ContentLimits.maxTextLength).contains(utf8.count) else { throw .limitExceeded(what: "text") }
            out += quoted.bytes
            out.appendBigEndian(UInt16(utf8.count))
            out += utf8
        case let .reaction(target, emoji):
            let utf8 = Array((emoji ?? "").utf8)
            if let emoji { guard ReactionEmoji.isAcceptable(emoji) else { throw .malformed(what: "reaction emoji") } }
            out += target.bytes
            out.append(UInt8(utf8.count))
            out += utf8
        case let .deletion(target):
            out += target.bytes
        case let .disappearingTimer(seconds):
            guard seconds <= ContentLimits.maxDisappearingSeconds else { throw .limitExceeded(what: "disappearing timer") }
            out.appendBigEndian(seconds)
        case let .expiring(seconds, inner):
            guard (1...ContentLimits.maxDisappearingSeconds).contains(seconds) else { throw .limitExceeded(what: "disappearing timer") }
            guard Content.canExpire(inner.typeByte) else { throw .malformed(what: "expiring content type") }
            out.appendBigEndian(seconds)
            out.append(inner.typeByte)
            try encode(inner, into: &out)
        case let .deviceList(list):
            guard (DeviceLimits.minimumListLength...DeviceLimits.maximumListLength).contains(list.count) else {
                throw .limitExceeded(what: "device list")
            }
            out.appendBigEndian(UInt16(list.count))
            out += list
        case let .sentTranscript(recipient, inner):
            guard Content.canBeTranscribed(inner.body.typeByte) else { throw .malformed(what: "sent transcript content type") }
            out += recipient.rawRepresentation
            out += try inner.encoded()
        case let .contacts(records):
            try ContactRecord.encode(records, into: &out)
        case let .recoveryKey(counter, key):
            guard (1...ContentLimits.maxListCounter).contains(counter) else { throw .limitExceeded(what: "device list counter") }
            guard key.count == ContentLimits.recoveryKeyLength else { throw .malformed(what: "recovery key") }
            out.appendBigEndian(counter)
            out += key.copyBytes()
        }
    }

    /// The content types a sent transcript (0x14) may carry: what a device
    /// sends a contact and the account's other devices must show or apply
    /// (§20.11). Never a transcript, a device list or a group's content.
    public static func canBeTranscribed(_ type: UInt8) -> Bool {
        type == 0x01 || type == 0x03 || type == 0x06 || (0x0D...0x12).contains(type)
    }

    /// The content types a message with a timer (0x12) may wrap: those shown
    /// as messages in a history.
    public static func canExpire(_ type: UInt8) -> Bool { type == 0x01 || type == 0x06 || type == 0x0D }

    /// The id (16 bytes) of the message an encoded edit (`0x0F`) edits; nil for
    /// any other content and for bytes too short to hold it. It reads the
    /// header's type and the body's first 16 bytes and decodes nothing else:
    /// the sender asks this of every content it seals for its resend records,
    /// group states and sender keys for each member among them.
    public static func editedMessageID(inEncoded bytes: [UInt8]) -> [UInt8]? {
        let header = 2 + MessageID.length + 8
        guard bytes.count >= header + MessageID.length, bytes[0] == Content.version, bytes[1] == 0x0F else { return nil }
        return Array(bytes[header ..< header + MessageID.length])
    }

    public init(decoding bytes: [UInt8]) throws(ProtocolError) {
        var reader = ByteReader(bytes, what: "content")
        let version = try reader.u8()
        guard version == Content.version else { throw .unsupportedVersion(version) }
        let type = try reader.u8()
        let id = try MessageID(bytes: try reader.read(MessageID.length))
        let sentAt = try reader.u64()
        let body = try Content.decodeBody(type: type, from: &reader)
        try reader.finish()
        self.init(id: id, sentAt: sentAt, body: body)
    }

    /// Reads the body of a content of `type` (up to the end of what it counts).
    private static func decodeBody(type: UInt8, from reader: inout ByteReader) throws(ProtocolError) -> ContentBody {
        let body: ContentBody
        switch type {
        case 0x01:
            let length = Int(try reader.u16())
            guard (1...ContentLimits.maxTextLength).contains(length) else { throw .malformed(what: "text length") }
            body = .text(try Content.utf8(try reader.read(length)))
        case 0x02, 0x03:
            let count = Int(try reader.u16())
            guard (1...ContentLimits.maxReceiptIDs).contains(count) else { throw .malformed(what: "receipt count") }
            var ids: [MessageID] = []
            for _ in 0..<count { ids.append(try MessageID(bytes: try reader.read(MessageID.length))) }
            body = type == 0x02 ? .deliveryReceipt(ids) : .readReceipt(ids)
        case 0x04: body = .typingStarted
        case 0x05: body = .typingStopped
        case 0x06:
            let key = try reader.read(32)
            let digest = try reader.read(32)
            let size = try reader.u64()
            let blobLength = Int(try reader.u8())
            let blobID = try reader.read(blobLength)
            let nameLength = Int(try reader.u8())
            let name = nameLength == 0 ? "" : try Content.utf8(try reader.read(nameLength))
            let mediaTypeLength = Int(try reader.u8())
            let mediaType = mediaTypeLength == 0 ? "" : try Content.utf8(try reader.read(mediaTypeLength))
            body = .attachment(try AttachmentPointer(key: SecureBytes(copying: key), digest: digest, size: size, blobID: blobID,
                                                     fileName: name, mediaType: mediaType))
        case 0x07:
            body = .deliveryCredential(try reader.read(ContentLimits.deliveryCredentialLength))
        case 0x08:
            let length = Int(try reader.u8())
            guard (1...ContentLimits.maxDisplayNameLength).contains(length) else { throw .malformed(what: "display name length") }
            body = .profile(displayName: try Content.utf8(try reader.read(length)))
        case 0x09:
            body = .decryptionError(envelopeDigest: try reader.read(ContentLimits.envelopeDigestLength))
        case 0x0A:
            body = .groupUpdate(try GroupState.decode(from: &reader))
        case 0x0B:
            body = .senderKeyDistribution(try SenderKeyDistribution.decode(from: &reader))
        case 0x0C:
            let groupID = try reader.read(SenderKeyWire.groupIDLength)
            body = .groupLeave(groupID: groupID, epoch: try reader.u32())
        case 0x0D, 0x0F:
            // A reply and an edit share a layout: a message id, then a text.
            let named = try MessageID(bytes: try reader.read(MessageID.length))
            let length = Int(try reader.u16())
            guard (1...ContentLimits.maxTextLength).contains(length) else { throw .malformed(what: "text length") }
            let text = try Content.utf8(try reader.read(length))
            body = type == 0x0D ? .reply(to: named, text: text) : .edit(of: named, text: text)
        case 0x0E:
            let target = try MessageID(bytes: try reader.read(MessageID.length))
            let length = Int(try reader.u8())
            guard length <= ContentLimits.maxReactionLength else { throw .malformed(what: "reaction length") }
            if length == 0 {
                body = .reaction(to: target, emoji: nil)
            } else {
                let emoji = try Content.utf8(try reader.read(length))
                guard ReactionEmoji.isAcceptable(emoji) else { throw .malformed(what: "reaction emoji") }
                body = .reaction(to: target, emoji: emoji)
            }
        case 0x10:
            body = .deletion(of: try MessageID(bytes: try reader.read(MessageID.length)))
        case 0x11:
            let seconds = try reader.u32()
            guard seconds <= ContentLimits.maxDisappearingSeconds else { throw .malformed(what: "disappearing timer") }
            body = .disappearingTimer(seconds: seconds)
        case 0x12:
            let seconds = try reader.u32()
            guard (1...ContentLimits.maxDisappearingSeconds).contains(seconds) else { throw .malformed(what: "disappearing timer") }
            let inner = try reader.u8()
            // Only a message shown in history expires; in particular an
            // expiring content never wraps another (no recursion to bound).
            guard Content.canExpire(inner) else { throw .malformed(what: "expiring content type") }
            body = .expiring(after: seconds, try decodeBody(type: inner, from: &reader))
        case 0x13:
            let length = Int(try reader.u16())
            guard (DeviceLimits.minimumListLength...DeviceLimits.maximumListLength).contains(length) else {
                throw .malformed(what: "device list length")
            }
            body = .deviceList(try reader.read(length))
        case 0x14:
            let recipient = try IdentityKey(rawRepresentation: try reader.read(IdentityKey.length))
            // The inner content's type is checked before it is read, so a
            // transcript never wraps a transcript (no recursion to bound).
            let rest = try reader.readRest(minimum: 2 + MessageID.length + 8)
            guard rest[0] == Content.version else { throw .unsupportedVersion(rest[0]) }
            guard Content.canBeTranscribed(rest[1]) else { throw .malformed(what: "sent transcript content type") }
            body = .sentTranscript(recipient: recipient, try Content(decoding: rest))
        case 0x15:
            body = .largeGroupUpdate(try LargeGroupState.decode(try reader.readRest()))
        case 0x16:
            let groupID = try reader.read(SenderKeyWire.groupIDLength)
            body = .largeGroupRekey(groupID: groupID, epoch: try reader.u32())
        case 0x17:
            body = .contacts(try ContactRecord.decodeAll(from: &reader))
        case 0x18:
            let counter = try reader.u64()
            guard (1...ContentLimits.maxListCounter).contains(counter) else { throw .malformed(what: "device list counter") }
            var key = try reader.read(ContentLimits.recoveryKeyLength)
            body = .recoveryKey(listCounter: counter, key: SecureBytes(copying: key))
            ConstantTime.wipe(&key)
        default:
            throw .malformed(what: "content type")
        }
        return body
    }

    /// Strict UTF-8: invalid sequences are refused, not repaired.
    static func utf8(_ bytes: [UInt8]) throws(ProtocolError) -> String {
        guard let text = String(validating: bytes, as: UTF8.self) else { throw .malformed(what: "UTF-8 text") }
        return text
    }
}
