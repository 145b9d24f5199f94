import HushKit

/// An event with what it names read from the account: HushKit's events carry
/// ids, and the command line shows names and text. Read right after the
/// event, so a name is the one the thing has now.
enum EventDetails {
    /// A message arrived: in a group, `contact` is the member who wrote it.
    case message(Message, contact: String, group: String?)
    /// A stranger wrote: a message request.
    case request(Message, contact: String)
    /// An outgoing message moved on; `contact` is the contact's or the group's name.
    case status(Message, status: Message.Status, contact: String)
    case typing(contact: ContactID, name: String, active: Bool)
    /// Something was set aside undecrypted; `senderAsked`: its sender was
    /// asked to send it again, so what it held should follow (a notice, not an error).
    case undecryptable(reason: String, senderAsked: Bool)
    /// A contact could not decrypt a message, which was sent again.
    case resent(Message, contact: String)
    case connection(online: Bool)
    case groupChanged(ConversationID, group: String)
    /// Someone's reaction to a message changed; `contact` is the contact's or
    /// the group's name, `summary` the reactions now standing, with names.
    case reaction(Message, contact: String, summary: String)
    /// A message was edited by its author; `contact` is the contact's or the group's name.
    case edited(Message, contact: String)
    /// A message was deleted (or expired: then `message.isDeleted` and it is
    /// gone from history); `contact` is the contact's or the group's name.
    case deleted(Message, contact: String)
    /// A conversation's disappearing timer changed (seconds, nil = off).
    case timer(ConversationID, contact: String, seconds: Int64?)
    /// A received file's download ended (`attachment.state`: ready or
    /// failed); `contact` is the contact's or the group's name.
    case file(Attachment, contact: String)
    case missed(count: Int)
    case syncFailed(HushError)

    /// The details of `event`; nil for events the command line does not show
    /// (transfer progress) and for a message gone before it could be read.
    static func read(_ event: HushEvent, from account: HushAccount) async -> EventDetails? {
        switch event {
        case let .messageReceived(id, conversation):
            // Each read queues behind the messenger's other work (the next
            // push, a receipt's seal): as few as the event needs.
            guard let message = try? await account.message(id) else { return nil }
            let title = try? await account.title(of: conversation)
            guard let title, title.isGroup else { return .message(message, contact: title?.name ?? "?", group: nil) }
            let member = (try? await account.name(of: message.senderAddress)) ?? message.senderAddress
            return .message(message, contact: member, group: title.name)
        case let .messageRequest(id, contact, _):
            guard let message = try? await account.message(id) else { return nil }
            return .request(message, contact: (try? await account.contact(contact).name) ?? "?")
        case let .statusChanged(id, conversation, status):
            guard let message = try? await account.message(id) else { return nil }
            return .status(message, status: status, contact: await title(of: conversation, in: account))
        case let .typing(contact, active):
            return .typing(contact: contact, name: (try? await account.contact(contact).name) ?? "?", active: active)
        case let .undecryptable(reason):
            return .undecryptable(reason: reason, senderAsked: false)
        case let .awaitingResend(reason):
            return .undecryptable(reason: reason, senderAsked: true)
        case let .resent(id):
            guard let message = try? await account.message(id) else { return nil }
            return .resent(message, contact: await title(of: message.conversation, in: account))
        case let .connectionChanged(online):
            return .connection(online: online)
        case let .groupChanged(conversation):
            return .groupChanged(conversation, group: await title(of: conversation, in: account))
        case let .reactionChanged(id, conversation):
            guard let message = try? await account.message(id) else { return nil }
            var names: [String: String] = [:]
            for reaction in message.reactions {
                names[reaction.reactorAddress] = (try? await account.name(of: reaction.reactorAddress)) ?? reaction.reactorAddress
            }
            return .reaction(message, contact: await title(of: conversation, in: account),
                             summary: Presentation.reactions(message.reactions, names: names))
        case let .messageEdited(id, conversation):
            guard let message = try? await account.message(id) else { return nil }
            return .edited(message, contact: await title(of: conversation, in: account))
        case let .messageDeleted(id, conversation):
            guard let message = try? await account.message(id) else { return nil }
            return .deleted(message, contact: await title(of: conversation, in: account))
        case let .disappearingTimerChanged(conversation, seconds):
            return .timer(conversation, contact: await title(of: conversation, in: account), seconds: seconds)
        case let .fileChanged(id, _, conversation):
            guard let attachment = try? await account.attachment(id) else { return nil }
            return .file(attachment, contact: await title(of: conversation, in: account))
        case let .missed(count):
            return .missed(count: count)
        case let .syncFailed(error):
            return .syncFailed(error)
        case .transferProgress:
            return nil
        }
    }

    /// The contact's name for a one-to-one conversation, the group's name for a group's.
    static func title(of conversation: ConversationID, in account: HushAccount) async -> String {
        (try? await account.title(of: conversation).name) ?? "?"
    }
}
