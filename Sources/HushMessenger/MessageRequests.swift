import HushCrypto
import HushProtocol
import HushStore

/// A stranger who wrote first (or a contact the user blocked), with what
/// their conversation holds.
public struct MessageRequest: Sendable, Equatable {
    public let contact: Contact
    public let messageCount: Int
    /// The newest message, for a one-line preview.
    public let lastMessage: StoredMessage?
    /// The groups the stranger invites us to (names as they wrote them),
    /// joined when the request is accepted.
    public var invitations: [String] = []
}

/// Message requests (docs/PROTOCOL.md §10.2): a stranger's messages (and
/// group invitations) are kept but nothing goes back — no delivery or read
/// receipt, no delivery credential, no decryption-error report — until the
/// user accepts, which also joins the groups they invited us to. Blocking
/// drops their further envelopes unread and withdraws the credential they may
/// hold.
final class MessageRequests {
    private let dependencies: MessengerDependencies
    private let sealer: Sealer
    private let outbox: Outbox
    private let credentials: DeliveryCredentials
    /// Accepting a request joins the groups it invited us to.
    private let groupStates: ReceivedGroupStates
    /// A request accepted or a contact blocked here is too on our other devices (§20.16).
    private let records: OwnContactRecords
    private var store: MessageStore { dependencies.store }

    init(_ dependencies: MessengerDependencies, sealer: Sealer, outbox: Outbox, credentials: DeliveryCredentials, groupStates: ReceivedGroupStates,
         records: OwnContactRecords) {
        self.dependencies = dependencies
        self.records = records
        self.sealer = sealer
        self.outbox = outbox
        self.credentials = credentials
        self.groupStates = groupStates
    }

    /// Pending requests (or, with `blocked`, the blocked contacts), newest first.
    func list(blocked: Bool) throws -> [MessageRequest] {
        let wanted: ContactStanding = blocked ? .blocked : .requested
        let contacts = try store.contacts.all().filter { $0.standing == wanted }
        // Only these contacts' conversations: the list of all of them is as long as the account is large.
        let summaries = Dictionary(try store.conversations.list(standing: wanted).compactMap { summary in summary.contactId.map { ($0, summary) } },
                                   uniquingKeysWith: { first, _ in first })
        return try contacts.map { contact in
            let summary = summaries[contact.id]
            let count = try summary.map { try store.messages.incomingReceiptState(conversationId: $0.id).count } ?? 0
            return MessageRequest(contact: contact, messageCount: count, lastMessage: summary?.lastMessage,
                                  invitations: try store.invitations.invitations(contactId: contact.id).map(\.name))
        }.sorted { ($0.lastMessage?.createdAt ?? $0.contact.createdAt) > ($1.lastMessage?.createdAt ?? $1.contact.createdAt) }
    }

    /// Accepts the request from `name` (or unblocks a blocked contact),
    /// optionally naming them: the receipts owed for what they sent are
    /// queued, and they get our delivery credential; then the outbox is flushed.
    func accept(isolation: isolated (any Actor)? = #isolation, name: String, renameTo newName: String? = nil) async throws -> Contact {
        guard let contact = try store.contacts.contact(named: name) else { throw MessengerError.noRequest(name: name) }
        guard contact.standing != .accepted else { throw MessengerError.noRequest(name: name) }
        if let newName, newName != name, try store.contacts.contact(named: newName) != nil {
            throw MessengerError.contactExists(name: newName)
        }
        let accepted: Contact = try store.withinWrite { store in
            try store.contacts.setStanding(.accepted, contactId: contact.id)
            if let newName, newName != name { try store.contacts.rename(contactId: contact.id, to: newName) }
            guard let accepted = try store.contacts.contact(id: contact.id) else { throw MessengerError.unknownContact(name) }
            if accepted.verification != .changed, try PrimarySession.exists(for: accepted, dependencies) {
                try sendOwedReceipts(to: accepted)
                try credentials.handOver(to: accepted)
                try sealer.handOverProfile(to: accepted)
                try sealer.handOverDeviceList(to: accepted)
            }
            try groupStates.applyInvitations(from: accepted)
            try records.announce(accepted, changed: newName == nil || newName == name ? .standing : [.standing, .name])
            return accepted
        }
        await outbox.flush()
        return accepted
    }

    /// Blocks `name` (a request or any contact): their envelopes are dropped
    /// unread from now on, and when they held our delivery credential it is
    /// replaced (the others get the new one).
    func block(isolation: isolated (any Actor)? = #isolation, name: String) async throws {
        let contact = try dependencies.contact(named: name)
        guard contact.standing != .blocked else { return }
        let rotate = try store.contacts.credentialSent(contactId: contact.id) != nil
        try store.withinWrite { store in
            try store.contacts.setStanding(.blocked, contactId: contact.id)
            try store.invitations.removeAll(contactId: contact.id)
            if rotate { try credentials.replace() }
            try records.announce(contact, changed: .standing)
        }
        // Best effort now; `sync` finishes what the relay did not confirm.
        if rotate { try? await credentials.withdrawRevoked() }
        await outbox.flush()
    }

    /// Queues a delivery receipt for every message the contact sent while
    /// their request waited, and a read receipt for those already read.
    private func sendOwedReceipts(to contact: Contact) throws {
        let conversation = try dependencies.conversation(with: contact)
        let owed = try store.messages.incomingReceiptState(conversationId: conversation)
        for (body, ids) in [(ContentBody.deliveryReceipt, owed.map(\.clientMessageId)),
                            (ContentBody.readReceipt, owed.filter(\.read).map(\.clientMessageId))] {
            for start in stride(from: 0, to: ids.count, by: ContentLimits.maxReceiptIDs) {
                let chunk = try ids[start..<min(start + ContentLimits.maxReceiptIDs, ids.count)].map { try MessageID(hex: $0) }
                try sealer.seal(body(chunk), to: contact.name)
            }
        }
    }
}
