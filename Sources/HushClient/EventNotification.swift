/// The desktop notification `hush listen --notify` shows for an event, if
/// any. By default it names the contact only: the text of a message would
/// otherwise sit in the notification daemon's history and on a lock screen.
public struct EventNotification: Sendable, Equatable {
    public let summary: String
    public let body: String

    /// The longest body shown; notification popups are small.
    public static let maximumBodyCharacters = 200

    /// Only new messages and message requests notify.
    public init?(_ event: MessengerEvent, includeText: Bool) {
        switch event {
        case let .received(message, contact):
            self.init(messageFrom: contact, text: message.body, isRequest: false, includeText: includeText)
        case let .request(message, contact, _):
            self.init(messageFrom: contact, text: message.body, isRequest: true, includeText: includeText)
        case let .groupReceived(message, group, member):
            self.init(messageFrom: "\(member) in \(group)", text: message.body, isRequest: false, includeText: includeText)
        default:
            return nil
        }
    }

    public init(messageFrom contact: String, text: String, isRequest: Bool, includeText: Bool) {
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
