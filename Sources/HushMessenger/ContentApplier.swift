import HushCrypto
import HushProtocol
import HushStore

/// Applies decrypted content from a contact: stores texts and attachment
/// notes (owing the delivery receipt, sealed at the end of the pass by
/// `DeliveryReceipts`), advances our outgoing messages on
/// receipts, shows typing, keeps the contact's delivery credential, and
/// answers decryption errors by sealing the message again. Runs inside the
/// caller's transaction.
final class ContentApplier {
    let dependencies: MessengerDependencies
    private let sealer: Sealer
    private let receipts: DeliveryReceipts
    let downloads: AttachmentDownloads
    let membership: GroupMembership
    private let largeGroups: LargeGroups
    let receivedGroupStates: ReceivedGroupStates
    private let senderKeys: GroupSenderKeys
    private let deviceLists: ContactDeviceLists
    var store: MessageStore { dependencies.store }

    init(_ dependencies: MessengerDependencies, sealer: Sealer, receipts: DeliveryReceipts, downloads: AttachmentDownloads,
         membership: GroupMembership, largeGroups: LargeGroups, receivedGroupStates: ReceivedGroupStates, senderKeys: GroupSenderKeys,
         deviceLists: ContactDeviceLists) {
        self.dependencies = dependencies
        self.sealer = sealer
        self.receipts = receipts
        self.downloads = downloads
        self.membership = membership
        self.largeGroups = largeGroups
        self.receivedGroupStates = receivedGroupStates
        self.senderKeys = senderKeys
        self.deviceLists = deviceLists
    }

    /// Applies `content` from `contact`; `device` is the contact's device
    /// whose session carried it (§20.10), nil for the account-key session.
    func apply(_ content: Content, from contact: Contact, device: IdentityKey? = nil, envelope: MailboxEnvelope,
               expiresAfter: UInt32? = nil) throws {
        let timer = expiresAfter.map(Int64.init)
        switch content.body {
        case let .expiring(seconds, inner):
            // The message it wraps, under the timer it was sent with (§10.7).
            try apply(Content(id: content.id, sentAt: content.sentAt, body: inner), from: contact, device: device, envelope: envelope,
                      expiresAfter: seconds)
        case let .text(text):
            try storeIncoming(text, contentType: "text/plain", content: content, from: contact, envelope: envelope, expiresAfter: timer)
        case let .reply(quoted, text):
            // Kept whether or not the quoted message is here (it may be older
            // than this device, or arrive later): the quote names it by id.
            try storeIncoming(text, contentType: "text/plain", content: content, from: contact, envelope: envelope,
                              replyTo: quoted, expiresAfter: timer)
        case let .reaction(target, emoji):
            try applyReaction(to: target, emoji: emoji, sentAt: content.sentAt, from: contact,
                              conversation: try dependencies.conversation(with: contact))
        case let .edit(target, text):
            try applyEdit(of: target, text: text, edit: content, from: contact, conversation: try dependencies.conversation(with: contact))
        case let .deletion(target):
            try applyDeletion(of: target, sentAt: content.sentAt, from: contact, conversation: try dependencies.conversation(with: contact))
        case let .disappearingTimer(seconds):
            try setTimer(seconds, conversation: try dependencies.conversation(with: contact), from: contact)
            try storeIncoming(DisappearingTimer.change(to: seconds), contentType: DisappearingTimer.contentType,
                              content: content, from: contact, envelope: envelope)
        case let .attachment(pointer):
            // The pointer is kept (nothing downloads until the user asks: `hush fetch`).
            try storeIncoming(StoredAttachment.summary(fileName: pointer.fileName, size: Int64(pointer.size)),
                              contentType: "attachment", content: content, from: contact, envelope: envelope,
                              expiresAfter: timer) { messageId in
                try downloads.recordIncoming(pointer, messageId: messageId)
            }
        case let .deliveryReceipt(ids):
            try advanceOutgoing(ids, to: .delivered, contact: contact)
        case let .readReceipt(ids):
            try startExpiryOfRead(ids, readAt: content.sentAt, from: contact)
            try advanceOutgoing(ids, to: .read, contact: contact)
        case .typingStarted, .typingStopped:
            // A stranger's typing is not shown: a request is read when the user chooses.
            if contact.standing == .accepted {
                try dependencies.emit(.typing(contact: contact.name, active: content.body == .typingStarted, contactID: contact.id))
            }
        case let .deliveryCredential(token):
            try store.contacts.setDeliveryCredential(token, contactId: contact.id)
        case let .profile(displayName):
            // The name they chose, kept beside the one the user gave them (a
            // stranger's too: a request shows it, never instead of the address).
            try store.contacts.setProfileName(displayName, contactId: contact.id)
        case let .decryptionError(digest):
            if let device {
                try answerDecryptionError(digest, from: contact, device: device)
            } else {
                try answerDecryptionError(digest, from: contact)
            }
        case let .groupUpdate(state):
            try receivedGroupStates.applyUpdate(state, from: contact, storedAt: envelope.relayTimestamp)
        case let .senderKeyDistribution(distribution):
            try senderKeys.applyDistribution(distribution, from: contact, device: device)
        case let .groupLeave(groupID, epoch):
            if let group = try store.groups.group(groupID: groupID), group.isLarge {
                try largeGroups.applyLeave(group, from: contact)
            } else {
                try membership.applyLeave(groupID: groupID, epoch: epoch, from: contact)
            }
        case let .largeGroupUpdate(state):
            try largeGroups.applyUpdate(state, from: contact)
        case let .largeGroupRekey(groupID, epoch):
            // A large group's member that lost its place in its chain (§18.4), or a small group's member
            // that revoked a device (§20.14).
            try largeGroups.applyRekey(groupID: groupID, epoch: epoch, from: contact)
            try membership.applyRekeyRequest(groupID: groupID, epoch: epoch, from: contact)
        case let .deviceList(list):
            try deviceLists.adopt(list, from: contact, source: .content(content, envelope))
        case .sentTranscript:
            // Only a device of our own account sends one (§20.11), on a
            // session between our devices (`EnvelopeOpener`), never a contact.
            throw MessengerError.protocolFailure("a sent transcript from \(contact.name), who is not a device of this account")
        case .contacts:
            // The same: our contacts are our devices' business alone (§20.16).
            throw MessengerError.protocolFailure("contact records from \(contact.name), who is not a device of this account")
        case .recoveryKey:
            throw MessengerError.protocolFailure("a recovery key from \(contact.name), who is not a device of this account")
        }
    }

    /// A member's text or file in a group: stored in the group's
    /// conversation under the member's address, with a delivery receipt
    /// owed to the member (sealed over our pairwise session).
    func applyGroup(_ content: Content, from contact: Contact, group: StoredGroup, envelope: MailboxEnvelope,
                    expiresAfter: UInt32? = nil) throws {
        guard contact.standing != .blocked else { return }
        let body: String, contentType: String
        var pointer: AttachmentPointer?
        var replyTo: MessageID?
        // Only from a member of the group as it stands now: a removed
        // member's chain may still decrypt, but their word no longer counts.
        func isCurrentMember() throws -> Bool {
            try group.currentState().members.contains(where: { $0.identityKey.rawRepresentation == contact.identityKey })
        }
        switch content.body {
        case let .expiring(seconds, inner):
            try applyGroup(Content(id: content.id, sentAt: content.sentAt, body: inner), from: contact, group: group, envelope: envelope,
                           expiresAfter: seconds)
            return
        case let .text(text): (body, contentType) = (text, "text/plain")
        case let .reply(quoted, text): (body, contentType, replyTo) = (text, "text/plain", quoted)
        case let .reaction(target, emoji):
            guard try isCurrentMember() else { return }
            try applyReaction(to: target, emoji: emoji, sentAt: content.sentAt, from: contact, conversation: group.conversationId)
            return
        case let .edit(target, text):
            // Likewise: a removed member no longer edits what the group shows.
            guard try isCurrentMember() else { return }
            try applyEdit(of: target, text: text, edit: content, from: contact, conversation: group.conversationId)
            return
        case let .deletion(target):
            guard try isCurrentMember() else { return }
            try applyDeletion(of: target, sentAt: content.sentAt, from: contact, conversation: group.conversationId)
            return
        case let .disappearingTimer(seconds):
            // A timer from someone not in the group is ignored: it would
            // change how long everyone's messages live.
            guard try isCurrentMember() else { return }
            try setTimer(seconds, conversation: group.conversationId, from: contact)
            (body, contentType) = (DisappearingTimer.change(to: seconds), DisappearingTimer.contentType)
        case let .attachment(attached):
            (body, contentType) = (StoredAttachment.summary(fileName: attached.fileName, size: Int64(attached.size)), "attachment")
            pointer = attached
        default: return
        }
        let message = NewMessage(conversationId: group.conversationId, serverId: envelope.serverID, clientMessageId: content.id.description,
                                 direction: .incoming, sender: contact.address, body: body, contentType: contentType,
                                 status: .delivered, createdAt: Int64(clamping: content.sentAt), relayTimestamp: envelope.relayTimestamp,
                                 replyTo: replyTo?.description, expiresAfter: expiresAfter.map(Int64.init))
        guard case let .inserted(id) = try store.messages.insert(message) else { return }
        if let pointer { try downloads.recordIncoming(pointer, messageId: id) }
        if try eraseIfDeletedEarly(id, content: content, from: contact) { return }
        if contact.standing == .accepted, contact.verification != .changed, try PrimarySession.exists(for: contact, dependencies) {
            try receipts.owe(content.id, to: contact)
        }
        if let stored = try store.messages.message(id: id) {
            try dependencies.emit(.groupReceived(stored, group: group.name, member: contact.name))
        }
    }

    private func storeIncoming(_ body: String, contentType: String, content: Content, from contact: Contact,
                               envelope: MailboxEnvelope, replyTo: MessageID? = nil, expiresAfter: Int64? = nil,
                               alsoStore extra: (Int64) throws -> Void = { _ in }) throws {
        let conversation = try dependencies.conversation(with: contact)
        let message = NewMessage(conversationId: conversation, serverId: envelope.serverID, clientMessageId: content.id.description,
                                 direction: .incoming, sender: contact.address, body: body, contentType: contentType,
                                 status: .delivered, createdAt: Int64(clamping: content.sentAt), relayTimestamp: envelope.relayTimestamp,
                                 replyTo: replyTo?.description, expiresAfter: expiresAfter)
        guard case let .inserted(id) = try store.messages.insert(message) else { return }
        try extra(id)
        if try eraseIfDeletedEarly(id, content: content, from: contact) { return }
        // A request gets its receipts when (and if) the user accepts it. While
        // a changed identity key waits for the user, nothing is sealed to the
        // contact; what still arrives on the old session is stored all the same.
        guard contact.standing == .accepted, contact.verification != .changed else {
            // A stranger's message is a request; a contact's whose key changed is a message like any other.
            if let stored = try store.messages.message(id: id) {
                try dependencies.emit(contact.standing == .accepted ? .received(stored, contact: contact.name)
                                                                : .request(stored, contact: contact.name, contactID: contact.id))
            }
            return
        }
        try receipts.owe(content.id, to: contact)
        if let stored = try store.messages.message(id: id) { try dependencies.emit(.received(stored, contact: contact.name)) }
    }

    private func advanceOutgoing(_ ids: [MessageID], to status: MessageStatus, contact: Contact) throws {
        let time = dependencies.clock.now()
        for id in ids {
            // Scoped to the sender's conversation: a contact can confirm only
            // what was sent to it.
            let conversation = try store.conversations.conversation(forContact: contact.id, title: contact.name, at: time)
            if try store.messages.advanceOutgoingStatus(clientMessageId: id.description, to: status, at: time, conversationId: conversation) {
                if let message = try store.messages.message(clientMessageId: id.description) {
                    try dependencies.emit(.statusChanged(clientMessageID: id.description, status: status, contact: contact.name,
                                                     messageID: message.id, conversationID: conversation))
                }
            } else if let (message, group) = try recordGroupReceipt(id, status: status, from: contact) {
                // A group message moves on once every member it went to reached the status.
                try GroupMessageStatus(dependencies: dependencies).settle(message, in: group)
            }
        }
    }

    /// A member's receipt for one of our group messages. Returns the
    /// message's new overall status when every member reached it.
    private func recordGroupReceipt(_ clientMessageID: MessageID, status: MessageStatus, from contact: Contact) throws -> (StoredMessage, StoredGroup)? {
        guard let message = try store.messages.message(clientMessageId: clientMessageID.description), message.direction == .outgoing,
              let group = try store.groups.group(conversationId: message.conversationId) else { return nil }
        let receipts = try store.groups.receipts(messageId: message.id)
        guard receipts.contains(where: { $0.memberKey == contact.identityKey }) else { return nil }
        try store.groups.recordReceipt(messageId: message.id, memberKey: contact.identityKey, status: status.rawValue)
        return (message, group)
    }

    /// Sender side of decryption errors (docs/PROTOCOL.md §10.1): `contact`
    /// could not decrypt the envelope with `digest`. Reseals the message it
    /// carried unless the contact already confirmed it (a receipt) or it was
    /// resent on the session the error came on already; any other content
    /// it carried (a receipt, a credential, a group's state or key) is
    /// sealed again as it was, once per session too (§10.1: a contact
    /// restored twice in a row asks again from a newer session).
    private func answerDecryptionError(_ digest: [UInt8], from contact: Contact) throws {
        let session = try sessionAsked(by: contact, device: nil)
        if let content = try store.resends.takeContentToResend(forEnvelope: digest, contactId: contact.id, onSession: session,
                                                               at: dependencies.clock.now()) {
            guard contact.standing == .accepted, contact.verification != .changed else { return }
            if try !handOverAgain(try Content(decoding: content).body, to: contact) {
                try sealer.seal(encodedContent: content, to: contact, resend: true)
            }
            return
        }
        if try answeredAsGroupEnvelope(digest, from: contact, device: nil) { return }
        guard let messageId = try store.resends.messageId(forEnvelope: digest),
              let message = try store.messages.message(id: messageId), message.direction == .outgoing else { return }
        // A receipt from any device of the contact confirms the message; with several devices it says
        // nothing about the first device, which is asking here (§20.12).
        let confirmed = message.status == .delivered || message.status == .read
        guard try !confirmed || !sealer.deviceFanOut.activeDevices(of: contact).isEmpty,
              try store.contacts.contact(conversationId: message.conversationId)?.id == contact.id,
              try store.resends.markResent(messageId: messageId, onSession: session, at: dependencies.clock.now())
        else { return }
        try sealer.reseal(message, for: contact)
        try dependencies.emit(.resent(clientMessageID: message.clientMessageId, contact: contact.name, messageID: message.id))
    }

    /// Hands over again what was lost when it is our delivery credential,
    /// display name or device list: as it is now, not as it was (a later
    /// one may have replaced the lost one, and resealing the old one would
    /// put it back), to the contact and its devices. False for any other content.
    private func handOverAgain(_ body: ContentBody, to contact: Contact) throws -> Bool {
        switch body {
        case .deliveryCredential:
            try store.contacts.setCredentialSent(nil, contactId: contact.id)
            try sealer.handOverCredential(to: contact)
        case .profile:
            try store.contacts.setProfileSent(nil, contactId: contact.id)
            try sealer.handOverProfile(to: contact)
        case .deviceList:
            try store.contacts.setDeviceListSent(nil, contactId: contact.id)
            try sealer.handOverDeviceList(to: contact)
        default:
            return false
        }
        return true
    }

    /// `contact`'s device `device` could not open what we sealed to it
    /// (§20.12: a crossed first message with the device, a lost key): sent
    /// again to that device alone, on the session we hold with it now. A
    /// message goes once to each device (and session of it) that asks, whatever its status
    /// (another device may have confirmed it); our credential, name and
    /// list go again as they are now (`handOverAgain`).
    private func answerDecryptionError(_ digest: [UInt8], from contact: Contact, device: IdentityKey) throws {
        guard contact.standing == .accepted, contact.verification != .changed else { return }
        let fanOut = sealer.deviceFanOut, key = device.rawRepresentation
        let session = try sessionAsked(by: contact, device: device)
        if let content = try store.resends.takeContentToResend(forEnvelope: digest, contactId: contact.id, onSession: session,
                                                               at: dependencies.clock.now()) {
            if try !handOverAgain(try Content(decoding: content).body, to: contact) {
                try fanOut.seal(content, to: key, of: contact, conversation: try dependencies.conversation(with: contact), messageId: nil,
                                resendable: true)
            }
            return
        }
        if try answeredAsGroupEnvelope(digest, from: contact, device: device) { return }
        guard let messageId = try store.resends.messageId(forEnvelope: digest),
              let message = try store.messages.message(id: messageId), message.direction == .outgoing,
              try store.contacts.contact(conversationId: message.conversationId)?.id == contact.id,
              let content = try sealer.contentAgain(of: message),
              // Marked only when it can go: with no session to seal on, the next error from the device may find one.
              !session.isEmpty,
              try store.resends.markResent(messageId: messageId, toMember: key, onSession: session, at: dependencies.clock.now()),
              try fanOut.seal(content.encoded(), to: key, of: contact, conversation: message.conversationId, messageId: message.id,
                              resendable: false)
        else { return }
        try dependencies.emit(.resent(clientMessageID: message.clientMessageId, contact: contact.name, messageID: message.id))
    }

    /// When `digest` names a group envelope we sealed (a group message or
    /// a reaction, edit or deletion), answers the member `contact`: the
    /// resend goes to the mailbox that asked, its `device` (§20.12) or its
    /// account key. False when it names no group envelope of ours.
    private func answeredAsGroupEnvelope(_ digest: [UInt8], from contact: Contact, device: IdentityKey?) throws -> Bool {
        if let sent = try store.resends.groupContent(forEnvelope: digest) {
            try answerDecryptionError(forGroupContent: sent.content, id: sent.contentId, conversationId: sent.conversationId, from: contact,
                                      device: device)
            return true
        }
        guard let messageId = try store.resends.messageId(forEnvelope: digest),
              let message = try store.messages.message(id: messageId), message.direction == .outgoing,
              let group = try store.groups.group(conversationId: message.conversationId) else { return false }
        try answerDecryptionError(for: message, in: group, from: contact, device: device)
        return true
    }

    /// A member could not open our group reaction, edit or deletion (a
    /// content history does not show, docs/PROTOCOL.md §10.1): sealed again
    /// under our current chain for that member alone, when they are still a
    /// member and it was not resent to them on this session before. It carries no receipt,
    /// so unlike a message it is resent whether or not they had it: a
    /// receiver applies each of these once, whatever the copies. Asked by
    /// one of the member's devices (`device`), it goes to that device, once
    /// per device.
    private func answerDecryptionError(forGroupContent content: [UInt8], id: [UInt8], conversationId: Int64, from contact: Contact,
                                       device: IdentityKey?) throws {
        guard contact.standing == .accepted, contact.verification != .changed,
              let group = try store.groups.group(conversationId: conversationId), group.standing == .member else { return }
        let member = try IdentityKey(rawRepresentation: contact.identityKey)
        // Sealed for this member alone, so another member's changed key
        // (which stops what goes to the whole group, §18.2) does not hold it.
        guard try group.currentState().member(member) != nil,
              try store.resends.markGroupContentResent(contentId: id, toMember: (device ?? member).rawRepresentation,
                                                       onSession: sessionAsked(by: contact, device: device), at: dependencies.clock.now())
        else { return }
        try sealer.resealControl(content, in: group, for: member, mailbox: device ?? member)
    }

    /// A member could not open our group message (docs/PROTOCOL.md §10.1:
    /// a restored account, given our chain at a later point, §19.4): sealed
    /// again under our current chain for that member alone, when they are
    /// still a member, have not confirmed it (their receipt), and it was not
    /// resent to them on this session before (once per member: two members
    /// restored at once each need it; and per session: one restored twice
    /// in a row). Asked by one of the member's devices (`device`), it
    /// goes to that device, once per device; for a member of several
    /// devices, whatever the member's receipt says (another of its devices
    /// may have confirmed it, §20.12). Only to a member the message went to
    /// (its receipt row, written when it was sent).
    private func answerDecryptionError(for message: StoredMessage, in group: StoredGroup, from contact: Contact,
                                       device: IdentityKey?) throws {
        guard contact.standing == .accepted, contact.verification != .changed, group.standing == .member else { return }
        let member = try IdentityKey(rawRepresentation: contact.identityKey)
        guard try group.currentState().member(member) != nil,
              let receipt = try store.groups.receipts(messageId: message.id).first(where: { $0.memberKey == contact.identityKey })
        else { return }
        let confirmed = receipt.status == "delivered" || receipt.status == "read"
        guard try !confirmed || device != nil || !sealer.deviceFanOut.activeDevices(of: contact).isEmpty else { return }
        let mailbox = device ?? member
        guard try store.resends.markResent(messageId: message.id, toMember: mailbox.rawRepresentation,
                                           onSession: sessionAsked(by: contact, device: device), at: dependencies.clock.now())
        else { return }
        // For this member alone: another member's changed key does not hold it (§18.2).
        guard try sealer.reseal(message, in: group, for: member, mailbox: mailbox) else { return }
        try dependencies.emit(.resent(clientMessageID: message.clientMessageId, contact: contact.name, messageID: message.id))
    }

    /// The session a decryption error from `contact` (its `device`, or its
    /// account) came on and its answer goes out on: resends are counted per
    /// session of the peer (docs/PROTOCOL.md §10.1), so a member restored
    /// twice in a row has the group message again on its newest session.
    private func sessionAsked(by contact: Contact, device: IdentityKey?) throws -> [UInt8] {
        try SessionSlot(store: store, contactId: contact.id, deviceKey: device?.rawRepresentation).currentHandshakeID()
    }
}
