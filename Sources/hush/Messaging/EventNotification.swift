/// The desktop notification `hush listen --notify` shows for an event, if
/// any. By default it names the contact only: the text of a message would
/// otherwise sit in the notification daemon's history and on a lock screen.
struct EventNotification: Sendable, Equatable {
    let summary: String
    let body: String

    /// The longest body shown; notification popups are small.
    static let maximumBodyCharacters = 200

    /// Only new messages and message requests notify (not a copy of what
    /// another device of the account sent).
    init?(_ event: EventDetails, includeText: Bool) {
        if case let .message(message, _, _) = event, message.direction == .outgoing { return nil }
        switch event {
        case let .message(message, contact, nil):
            self.init(messageFrom: contact, text: message.text, isRequest: false, includeText: includeText)
        case let .request(message, contact):
            self.init(messageFrom: contact, text: message.text, isRequest: true, includeText: includeText)
        case let .message(message, member, group?):
            self.init(messageFrom: "\(member) in \(group)", text: message.text, isRequest: false, includeText: includeText)
        default:
            return nil
        }
    }

    /// The same, for an event as `hush listen --json` prints it (a daemon's stream).
    init?(_ object: [String: Any], includeText: Bool) {
        guard let contact = object["contact"] as? String, object["direction"] as? String != "out" else { return nil }
        let text = object["body"] as? String ?? ""
        switch object["event"] as? String {
        case "message":
            let from = (object["group"] as? String).map { "\(contact) in \($0)" } ?? contact
            self.init(messageFrom: from, text: text, isRequest: false, includeText: includeText)
        case "request":
            self.init(messageFrom: contact, text: text, isRequest: true, includeText: includeText)
        default:
            return nil
        }
    }

    init(messageFrom contact: String, text: String, isRequest: Bool, includeText: Bool) {
        if isRequest {
            summary = "Hush: message request from \(contact)"
            body = includeText ? EventNotification.plain(text) : "hush requests accept \(contact) to answer"
        } else {
            summary = "Hush: message from \(contact)"
            body = includeText ? EventNotification.plain(text) : ""
        }
    }

    /// One line, shortened, without control characters, and without the
    /// characters notification servers read as markup (some render a subset of HTML).
    static func plain(_ text: String) -> String {
        var scalars = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\n", "\r", "\t": scalars.append(" ")
            case "<": scalars.append("‹")
            case ">": scalars.append("›")
            case "&": scalars.append("＆")
            default: scalars.append(scalar.properties.generalCategory == .control ? "\u{FFFD}" : scalar)
            }
        }
        let line = String(scalars)
        return line.count > maximumBodyCharacters ? String(line.prefix(maximumBodyCharacters - 1)) + "…" : line
    }
}
