import Foundation
import HushKit
import HushTerminal
import Synchronization

/// What `hush chat` draws for one conversation: the header, a line per
/// message, each outgoing message's status mark kept on its own line, and
/// local notices (command output, errors) that are never sent.
final class ChatView: Sendable {
    let screen: ChatScreen
    let contact: String
    private let style: TerminalStyle
    private let state = Mutex(ViewState())

    private struct ViewState {
        /// Messages on screen by client id, so a status change can redraw their line.
        var messages: [String: Message] = [:]
        /// The latest status of each outgoing message; may arrive before the message is shown.
        var statuses: [String: Message.Status] = [:]
        var verification: Contact.Verification = .unverified
        var presence = ""
        /// In a group: each member's (and former member's) address with the name shown for it.
        var members: [String: String] = [:]
        /// Messages this chat deleted (`/delete`, `/delete!`), already confirmed on screen: their
        /// deletion event is not shown again (a walkthrough saw every deletion confirmed twice).
        var deletedHere: Set<Int64> = []
    }

    /// Makes a deletion of this chat and confirms it; its event, which may
    /// come before `delete` returns, is then not shown again.
    func deleting(_ id: Int64, forEveryone: Bool, _ delete: () async throws -> Void) async throws {
        state.withLock { _ = $0.deletedHere.insert(id) }
        do { try await delete() } catch {
            state.withLock { _ = $0.deletedHere.remove(id) }
            throw error
        }
        notice(forEveryone ? "message [\(id)] deleted for everyone" : "message [\(id)] deleted here")
    }

    /// A deletion event: the message's line shows "(deleted)" where it stands
    /// (its text stayed on screen until the chat was opened again, where an
    /// edit is rewritten in place: a walkthrough), and the deletion is said
    /// unless this chat made it and said so.
    func deleted(_ message: Message) {
        let status = state.withLock { s in
            s.messages[message.clientMessageID] = message
            return s.statuses[message.clientMessageID].map { later($0, message.status) } ?? message.status
        }
        if screen.isInteractive { _ = screen.update(key: message.clientMessageID, text: line(message, status: status)) }
        guard state.withLock({ $0.deletedHere.remove(message.id.rawValue) == nil }) else { return }
        notice("message [\(message.id)] was deleted")
    }

    /// Whether this is a group chat: its lines are never labelled with the
    /// group's own name, only with the member who wrote them.
    let isGroup: Bool

    init(screen: ChatScreen, contact: String, style: TerminalStyle, isGroup: Bool = false) {
        self.screen = screen
        self.contact = contact
        self.style = style
        self.isGroup = isGroup
    }

    // MARK: Header

    func setVerification(_ verification: Contact.Verification) {
        state.withLock { $0.verification = verification }
        refreshHeader()
    }

    /// A group chat: lines name the member who wrote them.
    func setMembers(_ members: [String: String]) {
        state.withLock { $0.members.merge(members) { _, new in new } }
    }

    func setPresence(_ presence: String) {
        state.withLock { $0.presence = presence }
        refreshHeader()
    }

    private func refreshHeader() {
        let (verification, presence) = state.withLock { ($0.verification, $0.presence) }
        let trust: String
        switch verification {
        case .verified: trust = style.good("✓ verified")
        case .unverified: trust = style.dim("not verified (/verify)")
        case .changed: trust = style.bad("IDENTITY KEY CHANGED: hush contact accept \(UntrustedText.sanitized(contact, keepingLineBreaks: false))")
        }
        var parts = [style.bold(UntrustedText.sanitized(contact, keepingLineBreaks: false)), trust]
        if !presence.isEmpty { parts.append(presence.hasSuffix("typing…") ? style.yellow(presence) : presence) }
        screen.setHeader(parts.joined(separator: " · "))
    }

    // MARK: Transcript

    /// Shows a message on a line of its own; one already on screen (this
    /// chat's own send, told again by its event) is redrawn where it stands.
    /// `again`: drawn anew even when on screen (a /history or /search block).
    func show(_ message: Message, again: Bool = false) {
        let status = state.withLock { s in
            s.messages[message.clientMessageID] = message
            let status = s.statuses[message.clientMessageID].map { later($0, message.status) } ?? message.status
            s.statuses[message.clientMessageID] = status
            return status
        }
        let text = line(message, status: status)
        if !again, screen.update(key: message.clientMessageID, text: text) { return }
        screen.show(text, key: message.clientMessageID)
    }

    /// An edit by the message's author: its line shows the new text where it
    /// stands, marked "(edited)". Without a terminal (line mode), or when the
    /// message is not on screen, the edited line is printed as a new one.
    func edited(_ message: Message) {
        let status = state.withLock { s in
            s.messages[message.clientMessageID] = message
            return s.statuses[message.clientMessageID].map { later($0, message.status) } ?? message.status
        }
        let text = line(message, status: status)
        if screen.isInteractive, screen.update(key: message.clientMessageID, text: text) { return }
        screen.show(text, key: message.clientMessageID)
    }

    /// A status change: the mark on the message's line changes where it stands.
    /// Without a terminal (line mode) it is printed as a short line instead.
    func statusChanged(_ clientMessageID: String, to status: Message.Status) {
        let message: Message? = state.withLock { s in
            s.statuses[clientMessageID] = s.statuses[clientMessageID].map { later($0, status) } ?? status
            return s.messages[clientMessageID]
        }
        guard screen.isInteractive else {
            screen.show(style.dim("  message \(clientMessageID.prefix(8)): ") + mark(status))
            return
        }
        if let message { screen.update(key: clientMessageID, text: line(message, status: status)) }
    }

    /// A line that changes in place (a transfer's progress): on a terminal
    /// each call replaces the line with `key`; without one only the `final`
    /// text is printed, so a script's output is not flooded.
    func progress(key: String, _ text: String, final: Bool = false) {
        let line = style.dim(UntrustedText.sanitized(text, keepingLineBreaks: false))
        if screen.isInteractive {
            if !screen.update(key: key, text: line) { screen.show(line, key: key) }
        } else if final {
            screen.show(line)
        }
    }

    /// A local line: command output or an error. Never sent. Defused as a
    /// whole: it may name a group or a member, or quote a relay's reason.
    func notice(_ text: String) { screen.show(style.dim(UntrustedText.sanitized(text))) }
    func error(_ text: String) { screen.show(style.bad(UntrustedText.sanitized(text))) }

    /// `── title ──` then the messages.
    func block(title: String, messages: [Message]) {
        notice("── \(title) ──")
        for message in messages { show(message, again: true) }
    }

    /// Receipts can overtake each other; a mark never goes back (read stays read).
    private func later(_ a: Message.Status, _ b: Message.Status) -> Message.Status {
        let order: [Message.Status] = [.pending, .failed, .sent, .delivered, .read]
        return (order.firstIndex(of: a) ?? 0) >= (order.firstIndex(of: b) ?? 0) ? a : b
    }

    // MARK: Formatting

    func line(_ message: Message, status: Message.Status) -> String {
        let outgoing = message.direction == .outgoing
        // In a group, a sender not (or no longer) among the members is named by address, never by the group's name.
        let who = outgoing ? "you" : state.withLock { $0.members[message.senderAddress] } ?? (isGroup ? message.senderAddress : contact)
        var body = message.isDeleted ? style.dim("(deleted)")
                                     : UntrustedText.sanitized(message.text).replacingOccurrences(of: "\n", with: "\n" + Presentation.continuationIndent)
        if let quoted = message.replyTo {
            // The quoted message when this chat has shown it; hush history shows any stored one.
            let excerpt = state.withLock { $0.messages[quoted.clientMessageID]?.text }
            body = style.dim("↳ " + (excerpt.map { "“\(UntrustedText.oneLine($0, length: 32))” " } ?? "(reply) ")) + body
        }
        if message.isEdited { body += style.dim(" (edited)") }
        let suffix = outgoing ? "  " + mark(status) : ""
        // The id in brackets, as hush history shows it: what /reply, /react, /edit, /fetch and /delete take.
        return "\(style.dim("[\(message.id)] " + time(message.relayTimestamp ?? message.createdAt))) \(style.bold(UntrustedText.sanitized(who, keepingLineBreaks: false))): \(body)\(suffix)"
    }

    /// … pending, ✓ sent, ✓✓ delivered, ✓✓ read, ✗ failed.
    func mark(_ status: Message.Status) -> String {
        switch status {
        case .pending: return style.dim("…")
        case .sent: return "✓"
        case .delivered: return "✓✓"
        case .read: return style.good("✓✓ read")
        case .failed: return style.bad("✗ not sent")
        }
    }

    private static let clock: DateFormatter = formatter("HH:mm")
    private static let day: DateFormatter = formatter("yyyy-MM-dd HH:mm")

    private static func formatter(_ format: String) -> DateFormatter {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = format
        return formatter
    }

    /// "14:05" today, "2026-11-20 14:05" before.
    private func time(_ milliseconds: Int64) -> String {
        let date = Date(timeIntervalSince1970: Double(milliseconds) / 1000)
        return Calendar.current.isDateInToday(date) ? ChatView.clock.string(from: date) : ChatView.day.string(from: date)
    }
}
