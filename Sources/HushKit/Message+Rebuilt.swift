/// Messages rebuilt from a form they were sent in between processes (the
/// daemon's local API hands `hush chat` its messages as JSON): every field
/// as the account that stored it gave it. Never a message of the store's own.
extension Message {
    /// A message with every field given, as another process that read it
    /// from its account described it.
    public init(id: MessageID, conversation: ConversationID, direction: Direction, kind: Kind, senderAddress: String, text: String,
                status: Status, createdAt: Int64, relayTimestamp: Int64?, deliveredAt: Int64?, readAt: Int64?,
                clientMessageID: String, serverID: Int64?, replyTo: QuotedMessage?, reactions: [Reaction], editedAt: Int64?,
                isDeleted: Bool, expiresAfter: Int64?, expiresAt: Int64?) {
        self.id = id
        self.conversation = conversation
        self.direction = direction
        self.kind = kind
        self.senderAddress = senderAddress
        self.text = text
        self.status = status
        self.createdAt = createdAt
        self.relayTimestamp = relayTimestamp
        self.deliveredAt = deliveredAt
        self.readAt = readAt
        self.clientMessageID = clientMessageID
        self.serverID = serverID
        self.replyTo = replyTo
        self.reactions = reactions
        self.editedAt = editedAt
        self.isDeleted = isDeleted
        self.expiresAfter = expiresAfter
        self.expiresAt = expiresAt
    }
}

extension QuotedMessage {
    /// A quote of `message` (nil when not stored here), by its client message id.
    public init(quoting message: MessageID?, clientMessageID: String) {
        self.init(message: message, clientMessageID: clientMessageID)
    }
}

extension Reaction {
    /// A reaction `emoji` by the account `reactorAddress` (`contact` when it is
    /// one, `isYou` when it is the account itself), set at `reactedAt` (ms).
    public init(emoji: String, by reactorAddress: String, contact: ContactID?, isYou: Bool, at reactedAt: Int64) {
        self.init(emoji: emoji, reactorAddress: reactorAddress, contact: contact, isYou: isYou, reactedAt: reactedAt)
    }
}
