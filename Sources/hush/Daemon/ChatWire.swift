import Foundation
import HushDaemon
import HushKit

/// How the daemon hands `hush chat` its messages and events, and how the
/// chat reads them back: the objects `--json` commands print
/// (`Presentation.json`, `ListenCommand.describe`) with the few fields a
/// client needs to rebuild them (docs/DAEMON-API.md, "Chat").
enum ChatWire {
    /// A message as `hush history --json` prints it, with its conversation,
    /// its sender's address and, for an incoming one, the name to show for them.
    static func json(_ message: Message, contact: String, senderName: String? = nil) -> [String: Any] {
        var object = Presentation.json(message, contact: contact)
        object["conversationId"] = message.conversation.rawValue
        object["sender"] = message.senderAddress
        if let senderName { object["senderName"] = senderName }
        return object
    }

    /// What `events.subscribe` with `details` adds to `hush listen --json`'s object: the
    /// whole message for an event about one, the contact's id for typing,
    /// the conversation for a group or timer change.
    static func eventExtras(_ event: EventDetails) -> [String: Any] {
        switch event {
        case let .message(message, contact, _), let .request(message, contact), let .status(message, _, contact),
             let .resent(message, contact), let .reaction(message, contact, _), let .edited(message, contact),
             let .deleted(message, contact):
            return ["message": json(message, contact: contact)]
        case let .typing(contact, _, _):
            return ["contactId": contact.rawValue]
        case let .groupChanged(conversation, _), let .timer(conversation, _, _):
            return ["conversationId": conversation.rawValue]
        case let .file(attachment, _):
            return ["conversationId": attachment.conversation.rawValue]
        case .undecryptable, .connection, .missed, .syncFailed:
            return [:]
        }
    }

    /// A message the daemon sent (`json`).
    static func message(_ value: JSONValue) throws -> Message {
        func integer(_ key: String) throws -> Int64 {
            guard let number = value[key]?.integerValue else { throw unreadable(key) }
            return number
        }
        func text(_ key: String) throws -> String {
            guard let string = value[key]?.stringValue else { throw unreadable(key) }
            return string
        }
        guard let status = Message.Status(rawValue: try text("status")) else { throw unreadable("status") }
        let kind: Message.Kind = switch try text("contentType") {
        case "attachment": .file
        case "disappearing-timer": .timerChange
        case "device-list": .deviceListChange
        default: .text
        }
        let replyTo = try value["replyTo"].map { quoted in
            guard let clientID = quoted["clientMessageId"]?.stringValue else { throw unreadable("replyTo") }
            return QuotedMessage(quoting: quoted["id"]?.integerValue.map(MessageID.init(rawValue:)), clientMessageID: clientID)
        }
        let reactions = try (value["reactions"]?.arrayValue ?? []).map { reaction in
            guard let emoji = reaction["emoji"]?.stringValue, let address = reaction["address"]?.stringValue,
                  let at = reaction["reactedAt"]?.integerValue else { throw unreadable("reactions") }
            return Reaction(emoji: emoji, by: address, contact: reaction["contactId"]?.integerValue.map(ContactID.init(rawValue:)),
                            isYou: reaction["you"]?.boolValue == true, at: at)
        }
        return Message(id: MessageID(rawValue: try integer("id")), conversation: ConversationID(rawValue: try integer("conversationId")),
                       direction: try text("direction") == "out" ? .outgoing : .incoming, kind: kind, senderAddress: try text("sender"),
                       text: try text("body"), status: status, createdAt: try integer("createdAt"),
                       relayTimestamp: value["relayTimestamp"]?.integerValue, deliveredAt: value["deliveredAt"]?.integerValue,
                       readAt: value["readAt"]?.integerValue, clientMessageID: try text("clientMessageId"),
                       serverID: value["serverId"]?.integerValue, replyTo: replyTo, reactions: reactions,
                       editedAt: value["editedAt"]?.integerValue, isDeleted: value["deleted"]?.boolValue == true,
                       expiresAfter: value["expiresAfter"]?.integerValue, expiresAt: value["expiresAt"]?.integerValue)
    }

    /// An `event` notification of `events.subscribe` as the chat draws it;
    /// nil for one it does not show.
    static func event(_ value: JSONValue) throws -> EventDetails? {
        let contact = value["contact"]?.stringValue ?? "?"
        func message() throws -> Message {
            guard let object = value["message"] else { throw unreadable("message") }
            return try ChatWire.message(object)
        }
        switch value["event"]?.stringValue {
        case "message": return .message(try message(), contact: contact, group: value["group"]?.stringValue)
        case "request": return .request(try message(), contact: contact)
        case "status":
            guard let status = value["status"]?.stringValue.flatMap(Message.Status.init(rawValue:)) else { throw unreadable("status") }
            return .status(try message(), status: status, contact: contact)
        case "typing":
            guard let id = value["contactId"]?.integerValue else { throw unreadable("contactId") }
            return .typing(contact: ContactID(rawValue: id), name: contact, active: value["active"]?.boolValue == true)
        case "quarantined":
            return .undecryptable(reason: value["reason"]?.stringValue ?? "?", senderAsked: value["senderAsked"]?.boolValue == true)
        case "resent": return .resent(try message(), contact: contact)
        case "connection": return .connection(online: value["online"]?.boolValue == true)
        case "group":
            guard let id = value["conversationId"]?.integerValue else { throw unreadable("conversationId") }
            return .groupChanged(ConversationID(rawValue: id), group: value["group"]?.stringValue ?? "?")
        case "reaction": return .reaction(try message(), contact: contact, summary: value["summary"]?.stringValue ?? "")
        case "edited": return .edited(try message(), contact: contact)
        case "deleted": return .deleted(try message(), contact: contact)
        case "disappearingTimer":
            guard let id = value["conversationId"]?.integerValue else { throw unreadable("conversationId") }
            return .timer(ConversationID(rawValue: id), contact: contact, seconds: value["disappearingSeconds"]?.integerValue)
        case "missed": return .missed(count: Int(value["count"]?.integerValue ?? 0))
        case "syncFailed":
            let kind: HushError.Kind = value["homeReplaced"]?.boolValue == true ? .homeReplaced : .other
            return .syncFailed(HushError(kind, reason: value["message"]?.stringValue ?? "?"))
        default: return nil // "gone", and kinds a newer daemon may add
        }
    }

    private static func unreadable(_ field: String) -> CommandError {
        CommandError(.failure, "the daemon sent a message without a readable '\(field)': is it an older hush? (`hush daemon stop`, then start it again)")
    }
}
