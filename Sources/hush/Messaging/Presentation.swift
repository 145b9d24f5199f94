import Foundation
import HushKit
import HushTerminal

/// How messages and times look in the terminal.
enum Presentation {
    /// This process's standard output, or the client's for a command the
    /// daemon runs for it (`CommandContext`).
    static var style: TerminalStyle { CommandContext.current?.style ?? TerminalStyle.standard }

    /// pending …, sent ✓, delivered ✓✓, read ✓✓ (highlighted), failed ✗.
    static func mark(_ status: Message.Status) -> String {
        switch status {
        case .pending: return style.dim("… pending")
        case .sent: return "✓ sent"
        case .delivered: return "✓✓ delivered"
        case .read: return style.good("✓✓ read")
        case .failed: return style.bad("✗ failed")
        }
    }

    private static let timeFormatter: DateFormatter = {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "yyyy-MM-dd HH:mm"
        return formatter
    }()

    /// `yyyy-MM-dd HH:mm`, local time; "—" for none.
    static func time(_ milliseconds: Int64?) -> String {
        guard let milliseconds else { return "—" }
        return LocalMinuteFormat.string(milliseconds: milliseconds, fallback: formatterTime)
    }

    /// The same text by Foundation's formatter (ICU): for what `LocalMinuteFormat` leaves to it, and its tests.
    static func formatterTime(_ milliseconds: Int64) -> String {
        timeFormatter.string(from: Date(timeIntervalSince1970: Double(milliseconds) / 1000))
    }

    /// What starts each line of a message's text after its first.
    static let continuationIndent = "      "

    /// One history line: `[id] time  who: text (edited)  mark`.
    static func line(_ message: Message, contact: String) -> String {
        let who = message.direction == .outgoing ? "you" : contact
        let mark = message.direction == .outgoing ? "  " + Presentation.mark(message.status) : ""
        // Someone else's text: escape sequences in it must not reach the terminal.
        return "[\(message.id)] \(style.dim(time(message.relayTimestamp ?? message.createdAt)))  \(style.bold(peer(who))): \(text(of: message))\(mark)"
    }

    /// ` (edited)` after an edited message's text (dimmed), nothing otherwise.
    static func edited(_ message: Message) -> String {
        message.isEdited ? style.dim(" (edited)") : ""
    }

    /// A message's text for a terminal: sanitised, "deleted" for a
    /// tombstone, "(edited)" after an edited one, with the time left when
    /// its disappearing timer runs (an edit keeps the message's timer).
    static func text(of message: Message) -> String {
        guard !message.isDeleted else { return style.dim("(deleted)") }
        // Lines after the first are indented (as `hush chat` shows them): a line break in someone's
        // text must not start what reads as another history line ("[21] … you: …" forged by a contact).
        let text = UntrustedText.sanitized(message.text).replacingOccurrences(of: "\n", with: "\n" + continuationIndent) + edited(message)
        guard let expiresAt = message.expiresAt else { return text }
        return text + style.dim("  (disappears \(time(expiresAt)))")
    }

    static func json(_ message: Message, contact: String) -> [String: Any] {
        var object: [String: Any] = [
            "id": message.id.rawValue, "clientMessageId": message.clientMessageID, "contact": contact,
            "direction": message.direction == .outgoing ? "out" : "in", "body": message.text,
            "contentType": contentType(message), "status": message.status.rawValue, "createdAt": message.createdAt,
        ]
        if let serverId = message.serverID { object["serverId"] = serverId }
        if let relayTimestamp = message.relayTimestamp { object["relayTimestamp"] = relayTimestamp }
        if let deliveredAt = message.deliveredAt { object["deliveredAt"] = deliveredAt }
        if let readAt = message.readAt { object["readAt"] = readAt }
        if let quoted = message.replyTo {
            var replyTo: [String: Any] = ["clientMessageId": quoted.clientMessageID]
            // The quoted message's id when it is stored here; without it, only the client id is known.
            if let id = quoted.message { replyTo["id"] = id.rawValue }
            object["replyTo"] = replyTo
        }
        object["reactions"] = json(message.reactions)
        object["edited"] = message.isEdited
        if let editedAt = message.editedAt { object["editedAt"] = editedAt }
        object["deleted"] = message.isDeleted
        if let expiresAfter = message.expiresAfter { object["expiresAfter"] = expiresAfter }
        if let expiresAt = message.expiresAt { object["expiresAt"] = expiresAt }
        return object
    }

    /// Reactions for `--json`: emoji, the reactor's address, whether it is
    /// ours, and the reactor's contact id when they are a contact.
    static func json(_ reactions: [Reaction]) -> [[String: Any]] {
        reactions.map { reaction in
            var object: [String: Any] = ["emoji": reaction.emoji, "address": reaction.reactorAddress, "you": reaction.isYou,
                                         "reactedAt": reaction.reactedAt]
            if let contact = reaction.contact { object["contactId"] = contact.rawValue }
            return object
        }
    }

    /// The reactions under a message on one line, `👍 alice · ❤️ you`, with
    /// `names` by address (a reactor without one is named by address). The
    /// emoji and names are the reactors' own choice: defused.
    static func reactions(_ reactions: [Reaction], names: [String: String]) -> String {
        reactions.map { reaction in
            let who = reaction.isYou ? "you" : names[reaction.reactorAddress] ?? reaction.reactorAddress
            return "\(peer(reaction.emoji)) \(peer(who))"
        }.joined(separator: " · ")
    }

    /// The line above a reply: what it quotes, a short excerpt of it, or that
    /// this device does not have it.
    static func quote(_ quoted: Message?, name: String?) -> String {
        guard let quoted else { return style.dim(continuationIndent + "↳ replying to a message not stored here") }
        guard !quoted.isDeleted else { return style.dim(continuationIndent + "↳ replying to [\(quoted.id)] a deleted message") }
        return style.dim(continuationIndent + "↳ replying to [\(quoted.id)] \(peer(name ?? "?")): \(oneLine(quoted.text, length: 48))")
    }

    /// The content type as docs/PROTOCOL.md and earlier `--json` output name it.
    static func contentType(_ message: Message) -> String {
        switch message.kind {
        case .file: "attachment"
        case .timerChange: "disappearing-timer"
        case .deviceListChange: "device-list"
        case .text: "text/plain"
        }
    }

    /// A conversation's last message on one line, cut to `length` characters
    /// (the preview `hush chats` shows).
    static func summary(_ conversation: Conversation, length: Int = 60) -> String {
        guard let last = conversation.lastMessage else { return "" }
        guard !last.isDeleted else { return "(deleted)" }
        return preview(last.text, length: length)
    }

    /// `text` on one line (line breaks as spaces, runs of them as one),
    /// cut to `length` characters.
    static func preview(_ text: String, length: Int = 60) -> String {
        // Printable ASCII (most messages) has no line breaks and one
        // character per byte: the same result without splitting it or
        // counting its characters, which was 8 % of the daemon's time for
        // `hush chats` on 2,000 conversations (perf).
        if text.utf8.allSatisfy({ (0x20..<0x7f).contains($0) }) {
            return text.utf8.count <= length ? text : String(decoding: text.utf8.prefix(length - 1), as: UTF8.self) + "…"
        }
        let line = text.split(whereSeparator: \.isNewline).joined(separator: " ")
        return line.count <= length ? line : String(line.prefix(length - 1)) + "…"
    }

    /// Untrusted text on one line for a terminal, cut to `length` characters
    /// (the one sanitizer: `UntrustedText`).
    static func oneLine(_ text: String, length: Int = 72) -> String {
        UntrustedText.oneLine(text, length: length)
    }

    /// A string someone else chose (a group's or member's name, a reason from
    /// the relay) inside a line of our own: on one line, defused.
    static func peer(_ text: String) -> String {
        UntrustedText.sanitized(text, keepingLineBreaks: false)
    }

    /// One JSON object on one line (for `--json` streams).
    static func jsonLine(_ object: [String: Any]) -> String {
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]) else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }
}
