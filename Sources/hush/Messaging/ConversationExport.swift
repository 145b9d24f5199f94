import HushKit

/// One conversation as `hush export` gathers it from the account: who it is
/// with, and every message oldest first with what the two formats need
/// beside the message itself (names, receipts, the quoted message, the file).
struct ExportedConversation {
    enum Kind: String { case contact, group }

    let kind: Kind
    /// The name the account gave the contact or group.
    let name: String
    /// The contact of a one-to-one conversation.
    let contact: Contact?
    /// The group of a group conversation.
    let group: Group?
    let messages: [ExportedMessage]
}

struct ExportedMessage {
    let message: Message
    /// "you", or the name the account knows the writer by (their address when it has none).
    let sender: String
    /// What `hush history --json` puts in "contact": the conversation's name,
    /// or in a group the member who wrote an incoming message.
    let historyContact: String
    let resent: Bool
    let receipts: GroupReceipts?
    /// The message a reply quotes, with its writer, when this device has it.
    let quoted: (message: Message, sender: String)?
    /// A file message's file.
    let attachment: Attachment?
    /// Reactors' names by address ("you" for the account's own).
    let reactors: [String: String]

    /// Whether the file's decrypted copy goes into the export: only a file
    /// this device holds (a received one downloaded, a sent one's own copy;
    /// files sent before Hush kept them are the relay's alone), and an
    /// export never downloads.
    var fileIsHere: Bool { attachment?.isStoredHere ?? false }

    /// Why there is no file in the export, for a file message without one.
    var missingFile: String? {
        guard let attachment, !fileIsHere else { return nil }
        switch attachment.state {
        case .available, .downloading: return "not downloaded"
        default: return attachment.direction == .incoming ? "not downloaded" : "not kept on this device"
        }
    }
}

/// Reads conversations out of an account for `hush export`, read-only: it
/// marks nothing read and sends no receipt.
struct ConversationExport {
    let account: HushAccount
    /// Names by address, filled as writers and reactors are met.
    private var names: [String: String] = [:]

    init(account: HushAccount) {
        self.account = account
        names[account.address] = "you"
    }

    /// Every conversation (one-to-one and groups; not message requests or
    /// blocked contacts), or with `name` the one that name stands for.
    mutating func conversations(named name: String?) async throws -> [ExportedConversation] {
        if let name {
            switch try await Names(account: account).target(name) {
            case let .contact(contact):
                return [try await conversation(try await account.room(with: contact.id), contact: contact, group: nil)]
            case let .group(group):
                return [try await conversation(try await account.room(group.id), contact: nil, group: group)]
            }
        }
        var all: [ExportedConversation] = []
        for summary in try await account.conversations() {
            let room = try await account.room(summary.id)
            if let contact = summary.contact {
                all.append(try await conversation(room, contact: try await account.contact(contact), group: nil))
            } else if let group = try await room.group() {
                all.append(try await conversation(room, contact: nil, group: group))
            }
        }
        return all
    }

    private mutating func conversation(_ room: Room, contact: Contact?, group: Group?) async throws -> ExportedConversation {
        let title = contact?.name ?? group?.name ?? "?"
        let messages = try await allMessages(of: room)
        let resent = try await room.resentMessages()
        let byID = Dictionary(messages.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        var exported: [ExportedMessage] = []
        exported.reserveCapacity(messages.count)
        for message in messages {
            let sender = try await self.name(of: message.senderAddress)
            var quoted: (Message, String)?
            if let id = message.replyTo?.message {
                var original = byID[id]
                if original == nil { original = try await account.message(id) }
                if let original { quoted = (original, try await self.name(of: original.senderAddress)) }
            }
            var reactors: [String: String] = [:]
            for reaction in message.reactions {
                reactors[reaction.reactorAddress] = reaction.isYou ? "you" : try await self.name(of: reaction.reactorAddress)
            }
            let receipts = group != nil && message.direction == .outgoing ? try await room.receipts(of: message.id) : nil
            let attachment = message.kind == .file && !message.isDeleted ? try await account.attachment(of: message.id) : nil
            exported.append(ExportedMessage(
                message: message, sender: sender,
                historyContact: group != nil && message.direction == .incoming ? sender : title,
                resent: resent.contains(message.clientMessageID), receipts: receipts, quoted: quoted,
                attachment: attachment, reactors: reactors))
        }
        return ExportedConversation(kind: group == nil ? .contact : .group, name: title, contact: contact, group: group, messages: exported)
    }

    /// The whole history, oldest first, a page at a time.
    private func allMessages(of room: Room) async throws -> [Message] {
        var pages: [[Message]] = []
        var before: MessageID?
        while true {
            let page = try await room.history(before: before, limit: 1_000)
            pages.append(page.messages)
            guard page.hasOlder, let oldest = page.messages.first?.id else { break }
            before = oldest
        }
        return pages.reversed().flatMap { $0 }
    }

    private mutating func name(of address: String) async throws -> String {
        if let known = names[address] { return known }
        let name = try await account.name(of: address)
        names[address] = name
        return name
    }
}
