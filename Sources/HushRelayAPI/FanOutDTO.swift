import HushProtocol

/// `POST /v1/fanout`: one sealed envelope for several mailboxes (a group
/// message, encrypted once), stored for every admitted recipient in one
/// transaction. No login (sealed sender), as a single deposit. Each
/// recipient is checked exactly as a deposit to that mailbox would be and
/// gets its own result (`FanOutResponse`).
public struct FanOutRequest: Codable, Sendable, Equatable {
    /// One recipient: its mailbox and what entitles the sender to deposit there.
    public struct Recipient: Codable, Sendable, Equatable {
        /// The recipient's raw 32-byte identity key.
        public var mailbox: Base64Bytes
        /// A delivery credential the recipient handed the sender; without one
        /// this recipient is a first contact and needs `work`.
        public var credential: Base64Bytes?
        /// The first-contact proof-of-work nonce for THIS mailbox
        /// (`FirstContactWork.prefix(mailbox:requestID:envelope:)`).
        public var work: Base64Bytes?

        public init(mailbox: Base64Bytes, credential: Base64Bytes? = nil, work: Base64Bytes? = nil) {
            self.mailbox = mailbox
            self.credential = credential
            self.work = work
        }
    }

    /// The idempotency key, per recipient mailbox (as a deposit's): 1…64 of [A-Za-z0-9_-].
    public var requestID: String
    public var envelope: Base64Bytes
    /// 1…`RelayLimits.maxFanOutRecipients`, no mailbox twice.
    public var recipients: [Recipient]
    /// SHA-256 of `envelope` (`EnvelopeDigest`); optional, checked when present.
    public var envelopeSHA256: Base64Bytes?

    public init(requestID: String, envelope: Base64Bytes, recipients: [Recipient], envelopeSHA256: Base64Bytes? = nil) {
        self.requestID = requestID
        self.envelope = envelope
        self.recipients = recipients
        self.envelopeSHA256 = envelopeSHA256
    }

    /// The checks that refuse the whole request, in the relay's order: the
    /// request id, the envelope and its digest (`DepositRules`, as a single
    /// deposit's), the number of recipients, and each mailbox (a valid
    /// identity key, never twice). A client may run them before sending.
    public func check() throws(DepositRules.Problem) {
        try DepositRules.check(requestID: requestID, envelope: envelope.bytes, digest: envelopeSHA256?.bytes, digestName: "envelopeSHA256")
        guard !recipients.isEmpty else { throw .malformed("recipients is empty: a fan-out has 1…\(RelayLimits.maxFanOutRecipients)") }
        guard recipients.count <= RelayLimits.maxFanOutRecipients else {
            throw .malformed("\(recipients.count) recipients: a fan-out has at most \(RelayLimits.maxFanOutRecipients)")
        }
        var seen = Set<[UInt8]>()
        seen.reserveCapacity(recipients.count)
        for (index, recipient) in recipients.enumerated() {
            let mailbox = recipient.mailbox.bytes
            guard mailbox.count == IdentityKey.length, (try? IdentityKey(rawRepresentation: mailbox)) != nil else {
                throw .malformed("recipients.\(index).mailbox must be a 32-byte Ed25519 identity key")
            }
            guard seen.insert(mailbox).inserted else { throw .malformed("recipients.\(index).mailbox appears twice") }
        }
    }
}

/// The 200 answer to a fan-out: one result per recipient, in request order.
public struct FanOutResponse: Codable, Sendable, Equatable {
    public var results: [FanOutRecipientResult]
    public init(results: [FanOutRecipientResult]) { self.results = results }
}

/// One recipient's result: what a single deposit to that mailbox would have
/// answered. 201 carries the message id and timestamp (the same for a
/// repeated request id); any other status the error code and message a
/// single deposit would send, and for 428 the work bits it asks for.
public struct FanOutRecipientResult: Codable, Sendable, Equatable {
    public var status: Int
    public var messageID: UInt64?
    public var timestamp: Int64?
    /// A stable `RelayErrorCode` raw value.
    public var error: String?
    public var message: String?
    /// 428 only: the proof of work this mailbox asks for now (`Hush-Work-Bits`).
    public var workBits: Int?
    /// 429 only: seconds to wait (`Retry-After`).
    public var retryAfter: Int?

    public init(status: Int, messageID: UInt64? = nil, timestamp: Int64? = nil, error: String? = nil, message: String? = nil,
                workBits: Int? = nil, retryAfter: Int? = nil) {
        self.status = status
        self.messageID = messageID
        self.timestamp = timestamp
        self.error = error
        self.message = message
        self.workBits = workBits
        self.retryAfter = retryAfter
    }

    /// A stored (or repeated) deposit.
    public static func stored(messageID: UInt64, timestamp: Int64) -> FanOutRecipientResult {
        FanOutRecipientResult(status: 201, messageID: messageID, timestamp: timestamp)
    }
}
