import HushCrypto

/// What a message carries once decrypted, in a versioned binary format (a
/// version byte, no negotiation):
///
///     version (1: 0x01) || type (1) || message id (16) || sent at (8: ms since 1970, big-endian) || body
///
/// Receivers MUST reject unknown versions and types, lengths out of bounds,
/// invalid UTF-8 and trailing bytes (docs/PROTOCOL.md, "Content").
public struct Content: Sendable, Equatable {
    public static let version: UInt8 = 0x01

    public let id: MessageID
    /// The sender's clock, milliseconds since the Unix epoch (informational only).
    public let sentAt: UInt64
    public let body: ContentBody

    public init(id: MessageID, sentAt: UInt64, body: ContentBody) {
        self.id = id
        self.sentAt = sentAt
        self.body = body
    }
}

/// The content types. Raw values are the type byte.
public indirect enum ContentBody: Sendable, Equatable {
    case text(String)
    case deliveryReceipt([MessageID])
    case readReceipt([MessageID])
    case typingStarted
    case typingStopped
    case attachment(AttachmentPointer)
    /// A 32-byte token the recipient gives its contacts so the relay accepts their deposits.
    case deliveryCredential([UInt8])
    /// The sender's display name.
    case profile(displayName: String)
    /// "I could not decrypt the envelope whose SHA-256 is `envelopeDigest`
    /// (as you deposited it): send its content again on the current session."
    case decryptionError(envelopeDigest: [UInt8])
    /// A group's new membership state, from one of its admins (§18.2).
    case groupUpdate(GroupState)
    /// The sender's chain for a group and epoch (§18.1), so the receiver can read its group messages.
    case senderKeyDistribution(SenderKeyDistribution)
    /// "I leave this group": asks its admins to remove the sender (§18.2).
    case groupLeave(groupID: [UInt8], epoch: UInt32)
    /// A text that quotes an earlier message of the conversation by its client
    /// message id (§10.5): the quoted message may be unknown to the receiver.
    case reply(to: MessageID, text: String)
    /// The sender's reaction to a message of the conversation (§10.5): one
    /// emoji (`ReactionEmoji`), or nil to take the sender's reaction away.
    case reaction(to: MessageID, emoji: String?)
    /// The sender's new text for one of its own earlier texts or replies,
    /// named by client message id (§10.6); the receiver keeps the versions.
    case edit(of: MessageID, text: String)
    /// "Delete my message with this client message id for everyone" (§10.7):
    /// honoured only from the message's author, within the deletion window.
    case deletion(of: MessageID)
    /// The conversation's disappearing-message timer, set by the sender
    /// (§10.7): seconds a message lives once read, 0 = off.
    case disappearingTimer(seconds: UInt32)
    /// A text, attachment pointer or reply that disappears `seconds` after
    /// it is read (§10.7): the timer the sender's conversation had when it
    /// was sent, carried with the message so a later change cannot race it.
    case expiring(after: UInt32, ContentBody)
    /// The sending device's account's device list (§20.11), as signed bytes
    /// (§20.2): checked against the sender's account by whoever holds it
    /// (`DeviceListVerifier`), which a content alone does not know.
    case deviceList([UInt8])
    /// What the account sent the contact `recipient` from another of its
    /// devices (§20.11), so every device shows the same history. Only a
    /// content a device sends a contact (a text, file, reply, read receipt,
    /// reaction, edit, deletion, timer or expiring message) travels inside.
    case sentTranscript(recipient: IdentityKey, Content)
    /// A large group's new membership state, from one of its admins (§18.4):
    /// every member's chain is derived from its secret, nothing is distributed.
    case largeGroupUpdate(LargeGroupState)
    /// "I cannot send under this epoch of this large group (I lost my place
    /// in my chain): write the next state" (§18.4), to an admin.
    case largeGroupRekey(groupID: [UInt8], epoch: UInt32)
    /// Contacts as another device of the sender's own account holds them
    /// (§20.16): names, accepted or blocked or removed, verified. Only
    /// accepted from a device of the receiver's own account.
    case contacts([ContactRecord])
    /// The account's recovery key (§19.1) that replaced the one a revoked
    /// device holds (§20.14), with the counter of the device list that
    /// revoked it, so that of two keys the later one wins. Secret: kept in
    /// wiped memory. Only accepted from a device of the receiver's own
    /// account.
    case recoveryKey(listCounter: UInt64, key: SecureBytes)

    public var typeByte: UInt8 {
        switch self {
        case .text: return 0x01
        case .deliveryReceipt: return 0x02
        case .readReceipt: return 0x03
        case .typingStarted: return 0x04
        case .typingStopped: return 0x05
        case .attachment: return 0x06
        case .deliveryCredential: return 0x07
        case .profile: return 0x08
        case .decryptionError: return 0x09
        case .groupUpdate: return 0x0A
        case .senderKeyDistribution: return 0x0B
        case .groupLeave: return 0x0C
        case .reply: return 0x0D
        case .reaction: return 0x0E
        case .edit: return 0x0F
        case .deletion: return 0x10
        case .disappearingTimer: return 0x11
        case .expiring: return 0x12
        case .deviceList: return 0x13
        case .sentTranscript: return 0x14
        case .largeGroupUpdate: return 0x15
        case .largeGroupRekey: return 0x16
        case .contacts: return 0x17
        case .recoveryKey: return 0x18
        }
    }
}

/// Where an encrypted attachment blob lives and how to open it
/// (docs/PROTOCOL.md §10.3).
public struct AttachmentPointer: Sendable, Equatable, CustomStringConvertible, CustomReflectable {
    /// The secretstream key of the blob (32 bytes). Secret: kept in wiped memory.
    public let key: SecureBytes
    /// SHA-256 of the encrypted blob as stored by the relay, padding included.
    public let digest: [UInt8]
    /// Plaintext size in bytes; fixes every chunk boundary and the blob's length.
    public let size: UInt64
    /// The relay's blob id (1 to 64 bytes).
    public let blobID: [UInt8]
    /// The file name the sender chose (0 to 255 UTF-8 bytes).
    public let fileName: String
    /// The media type the sender's device guessed, e.g. `image/png` (0 to 255 UTF-8 bytes).
    public let mediaType: String

    public init(key: SecureBytes, digest: [UInt8], size: UInt64, blobID: [UInt8], fileName: String,
                mediaType: String) throws(ProtocolError) {
        guard key.count == 32 else { throw .malformed(what: "attachment key") }
        guard digest.count == 32 else { throw .malformed(what: "attachment digest") }
        guard size <= ContentLimits.maxAttachmentSize else { throw .limitExceeded(what: "attachment size") }
        guard (1...ContentLimits.maxBlobIDLength).contains(blobID.count) else { throw .malformed(what: "attachment blob id") }
        guard fileName.utf8.count <= ContentLimits.maxFileNameLength else { throw .limitExceeded(what: "attachment file name") }
        guard mediaType.utf8.count <= ContentLimits.maxMediaTypeLength else { throw .limitExceeded(what: "attachment media type") }
        self.key = key
        self.digest = digest
        self.size = size
        self.blobID = blobID
        self.fileName = fileName
        self.mediaType = mediaType
    }

    public var description: String { "AttachmentPointer(\(size) bytes, key redacted)" }
    public var customMirror: Mirror { Mirror(self, children: ["size": size], displayStyle: .struct) }
}

/// Hard limits of the content format. Receivers MUST refuse anything beyond them.
public enum ContentLimits {
    /// UTF-8 bytes of a text message.
    public static let maxTextLength = 32_768
    /// Message ids in one receipt.
    public static let maxReceiptIDs = 256
    public static let maxBlobIDLength = 64
    public static let maxFileNameLength = 255
    public static let maxMediaTypeLength = 255
    public static let maxDisplayNameLength = 64
    /// 4 GiB: attachments stream through secretstream in chunks.
    public static let maxAttachmentSize: UInt64 = 1 << 32
    public static let deliveryCredentialLength = 32
    /// SHA-256 of a sealed envelope, naming it in a decryption error.
    public static let envelopeDigestLength = 32
    /// UTF-8 bytes of a reaction's emoji (§10.5).
    public static let maxReactionLength = 32
    /// The longest disappearing-message timer, in seconds (4 weeks, §10.7).
    public static let maxDisappearingSeconds: UInt32 = 2_419_200
    /// How long after its own `sent at` an author may delete a message for
    /// everyone, in milliseconds (48 hours, §10.7).
    public static let deletionWindow: UInt64 = 48 * 3_600_000
    /// How long after the original an edit may be made (and is applied), in
    /// milliseconds of the author's clock: 48 hours (§10.6).
    public static let editWindow: UInt64 = 48 * 60 * 60 * 1000
    /// The most edits a message takes (§10.6): later ones are refused by the
    /// sender and ignored by the receiver.
    public static let maxEditsPerMessage = 20
    /// A recovery key (0x18, §19.1): 32 random bytes.
    public static let recoveryKeyLength = 32
    /// The largest device list counter a recovery key content names: a
    /// store keeps counters as signed 64-bit integers (§20.2).
    public static let maxListCounter = UInt64(Int64.max)
}
