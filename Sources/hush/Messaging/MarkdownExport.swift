import Foundation
import HushKit
import HushTerminal

/// `hush export --format markdown`: one file per conversation, for a person
/// to read: a header (who, their address, whether the safety number was
/// verified), then one paragraph per message, `**name** (time): text`.
///
/// Everything a peer chose (names, texts, file names, emoji) goes through
/// `MarkdownExport.text`: control characters and escape sequences are
/// defused by the project's sanitizer, and Markdown syntax is escaped, so a
/// message cannot start a heading, a link, an image, raw HTML or a code
/// block, nor end its own paragraph and forge another message's line.
enum MarkdownExport {
    static func document(_ conversation: ExportedConversation, account: String, exportedAt: Date) -> String {
        var lines: [String] = []
        switch conversation.kind {
        case .contact:
            lines.append("# Conversation with \(text(conversation.name))")
            lines.append("")
            if let contact = conversation.contact {
                lines.append("- Address: \(text(contact.address))")
                if let profile = contact.profileName { lines.append("- Their display name: \(text(profile))") }
                lines.append("- Safety number: \(verification(contact.verification, name: conversation.name))")
            }
        case .group:
            lines.append("# Group \(text(conversation.name))")
            lines.append("")
            if let group = conversation.group {
                if group.standing != .member { lines.append("- You \(group.standing == .left ? "left" : "were removed from") this group") }
                lines.append("- Members:")
                for member in group.members {
                    var entry = member.isYou ? "you" : "\(text(member.name)), \(text(member.address))"
                    if member.isAdmin { entry += " (admin)" }
                    if let state = member.verification { entry += ", safety number \(verification(state, name: member.name))" }
                    lines.append("  - " + entry)
                }
            }
        }
        lines.append("- Exported from \(text(account)) at \(ExportJSON.timestamp(exportedAt))")
        lines.append("")
        if conversation.messages.isEmpty { lines.append("*No messages.*") }
        for message in conversation.messages {
            lines.append(paragraph(message))
            lines.append("")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// One message: what it replies to, the line itself, its reactions; lines joined by hard breaks.
    static func paragraph(_ exported: ExportedMessage) -> String {
        let message = exported.message
        var lines: [String] = []
        if message.replyTo != nil {
            if let (quoted, author) = exported.quoted {
                let excerpt = quoted.isDeleted ? "a deleted message" : text(UntrustedText.oneLine(quoted.text, length: 60))
                lines.append("*↳ replying to \(text(author)): \(excerpt)*")
            } else {
                lines.append("*↳ replying to a message not stored here*")
            }
        }
        let time = ExportJSON.readableTime(message)
        let body: String
        if message.isDeleted {
            body = "*(deleted)*"
        } else if let attachment = exported.attachment {
            let name = text(UntrustedText.oneLine(attachment.fileName, length: 200))
            let size = ProgressDisplay.bytes(attachment.size)
            if exported.fileIsHere {
                body = "[\(name)](\(ExportNames.file(id: attachment.id.rawValue, peerName: attachment.fileName))) (\(size))"
            } else {
                body = "\(name) (\(size), \(exported.missingFile ?? "not downloaded"): no file)"
            }
        } else if message.kind == .timerChange || message.kind == .deviceListChange {
            body = "*\(text(UntrustedText.oneLine(message.text, length: 200)))*"
        } else {
            body = text(message.text)
        }
        let edited = message.isEdited ? " *(edited)*" : ""
        lines.append("**\(text(exported.sender))** (\(time)): \(body)\(edited)")
        if !message.reactions.isEmpty {
            lines.append("Reactions: " + message.reactions.map { reaction in
                "\(text(reaction.emoji)) \(text(exported.reactors[reaction.reactorAddress] ?? reaction.reactorAddress))"
            }.joined(separator: " · "))
        }
        return lines.joined(separator: "\\\n")
    }

    static func verification(_ state: Contact.Verification, name: String) -> String {
        switch state {
        case .verified: return "verified"
        case .unverified: return "not verified (compare it with hush verify \(text(name)))"
        case .changed: return "changed: their identity key changed since you added them"
        }
    }

    /// Peer-chosen text for a Markdown paragraph: sanitised for a terminal
    /// (someone will `cat` the file), Markdown syntax escaped, on lines
    /// joined by hard breaks, without blank lines (which would end the
    /// paragraph) or leading blanks (which could make a code block).
    static func text(_ raw: String) -> String {
        UntrustedText.sanitized(raw).split(separator: "\n", omittingEmptySubsequences: true)
            .map { $0.drop(while: { $0 == " " }) }
            .filter { !$0.isEmpty }
            .map(escapedLine)
            .joined(separator: "\\\n")
    }

    /// Characters that mean something anywhere in a line (emphasis, code,
    /// links and images, HTML and entities, strikethrough, tables, escapes).
    private static let inline: Set<Character> = ["\\", "`", "*", "_", "[", "]", "<", ">", "&", "~", "|", "!"]
    /// Characters that mean something at the start of a line (headings,
    /// quotes, lists, rules, setext underlines).
    private static let lineStart: Set<Character> = ["#", "+", "-", "=", ":"]

    private static func escapedLine(_ line: Substring) -> String {
        var result = ""
        result.reserveCapacity(line.count)
        // An ordered list item ("1." or "1)") can start a line too.
        let digits = line.prefix(while: \.isASCII).prefix(while: \.isNumber)
        for (index, character) in line.enumerated() {
            if inline.contains(character) || (index == 0 && lineStart.contains(character))
                || (index == digits.count && index > 0 && (character == "." || character == ")")) {
                result.append("\\")
            }
            result.append(character)
        }
        return result
    }
}
