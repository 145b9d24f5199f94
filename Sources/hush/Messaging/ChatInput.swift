import Foundation
import HushKit

/// What a line typed in a chat means. A line starting with "/" is a command
/// for this program, never sent; "//" sends the rest with one "/" in front
/// (so "//shrug" sends "/shrug").
enum ChatInput: Sendable, Equatable {
    case message(String)
    case help
    case quit
    /// `/verify` shows the safety number; `/verify DIGITS` compares it.
    case verify(code: String?)
    /// `/history [N]`: the last N messages again (default `ChatInput.defaultHistoryCount`).
    case history(count: Int)
    /// `/search TEXT` in this conversation.
    case search(String)
    /// `/file PATH`: send a file (the whole rest of the line is the path; `~/` is the home directory).
    case file(path: String)
    /// `/reply ID TEXT`: send TEXT quoting message ID (the ids `hush history`
    /// and the chat show in brackets). Here and below, a nil id is "last":
    /// the most recent message the command suits (`ChatSession.latest`).
    case reply(id: Int64?, text: String)
    /// `/react ID EMOJI` sets our reaction to message ID; `/unreact ID` (emoji nil) takes it away.
    case react(id: Int64?, emoji: String?)
    /// `/edit ID TEXT`: replace the text of our message ID with TEXT.
    case edit(id: Int64?, text: String)
    /// `/fetch [ID]`: download the file message ID carries to the downloads folder.
    case fetch(id: Int64?)
    /// `/delete ID` deletes message ID here; `/delete! ID` for everyone (our
    /// own, within 48 hours). The id is always given: never "last".
    case delete(id: Int64, forEveryone: Bool)
    /// `/disappear 1h|1d|1w|off`: the conversation's disappearing-message timer, in seconds (0 = off).
    case disappear(seconds: UInt32)
    /// Blank, or whitespace only: nothing to do.
    case nothing
    /// A command that does not exist or was used wrongly: the text says what to do.
    case invalid(String)

    static let defaultHistoryCount = 20
    static let maximumHistoryCount = 1_000

    /// The commands and what they do, for `/help` and the documentation.
    static let commandHelp: [(usage: String, meaning: String)] = [
        ("/help", "this list"),
        ("/quit", "leave the chat (Ctrl-D on an empty line and Ctrl-C too)"),
        ("/verify [DIGITS]", "show the safety number, or compare the one your contact reads out"),
        ("/history [N]", "show the last N messages again (default \(defaultHistoryCount))"),
        ("/search TEXT", "find messages of this conversation containing TEXT"),
        ("/file PATH", "send a file, encrypted here (your contact fetches it with hush fetch)"),
        ("/reply ID TEXT", "send TEXT as a reply quoting message ID"),
        ("/react ID EMOJI", "react to message ID with one emoji (a new one replaces yours)"),
        ("/unreact ID", "take your reaction to message ID away"),
        ("/edit ID TEXT", "replace the text of your message ID (both sides see \"(edited)\")"),
        ("/fetch [ID]", "save a received file in your downloads folder (default: the last one)"),
        ("/delete ID", "delete message ID here (its text and file go from this device)"),
        ("/delete! ID", "delete your message ID for everyone (within 48 hours of sending it)"),
        ("/disappear 1h|1d|1w|off", "messages sent from now on disappear that long after they are read"),
        ("//TEXT", "send a message that starts with /"),
    ]

    static let downloadsDescription = "$XDG_DOWNLOAD_DIR, else ~/Downloads"

    /// What /help says about the ID the commands take.
    static let handleHelp = "ID: the [number] before a message, or last (the latest that suits; /delete takes a number only)"

    /// A message handle: the id in brackets (`42` or `[42]`, as the chat
    /// shows it), or `last` (`.some(nil)`); nil when it is neither.
    static func handle<S: StringProtocol>(_ word: S) -> Int64?? {
        if word.lowercased() == "last" { return .some(nil) }
        var digits = Substring(word)
        if digits.hasPrefix("["), digits.hasSuffix("]"), digits.count > 2 { digits = digits.dropFirst().dropLast() }
        guard let id = Int64(digits), id > 0 else { return nil }
        return .some(id)
    }

    /// `~/x` as the home directory's `x` (a shell would do it; this line never saw one).
    static func expandingHome(_ path: String) -> String {
        guard path == "~" || path.hasPrefix("~/"), let home = ProcessInfo.processInfo.environment["HOME"] else { return path }
        return home + path.dropFirst()
    }

    /// Whether `line`, as typed so far, is a command (`/…`, not `//…`): a
    /// command is never sent, so typing one tells the contact nothing (a
    /// walkthrough's contact saw "is typing…" while `/help` was typed).
    static func isCommand(_ line: String) -> Bool {
        let trimmed = line.drop { $0.isWhitespace }
        return trimmed.hasPrefix("/") && !trimmed.hasPrefix("//")
    }

    init(parsing line: String) {
        let trimmed = line.trimmingCharacters(in: .whitespacesAndNewlines)
        guard trimmed.hasPrefix("/") else {
            self = trimmed.isEmpty ? .nothing : .message(trimmed)
            return
        }
        if trimmed.hasPrefix("//") {
            self = .message(String(trimmed.dropFirst()))
            return
        }
        let words = trimmed.dropFirst().split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        let name = words.first.map(String.init) ?? ""
        let argument = words.count > 1 ? words[1].trimmingCharacters(in: .whitespaces) : ""
        switch name.lowercased() {
        case "help", "?":
            self = .help
        case "quit", "exit", "q":
            self = .quit
        case "verify":
            self = .verify(code: argument.isEmpty ? nil : argument)
        case "history":
            if argument.isEmpty {
                self = .history(count: ChatInput.defaultHistoryCount)
            } else if let count = Int(argument), (1...ChatInput.maximumHistoryCount).contains(count) {
                self = .history(count: count)
            } else {
                self = .invalid("/history takes a number of messages from 1 to \(ChatInput.maximumHistoryCount)")
            }
        case "search":
            self = argument.isEmpty ? .invalid("/search needs the text to look for: /search TEXT") : .search(argument)
        case "file":
            self = argument.isEmpty ? .invalid("/file needs the path of the file to send: /file PATH") : .file(path: ChatInput.expandingHome(argument))
        case "reply", "edit":
            let parts = argument.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
            guard parts.count == 2, let id = ChatInput.handle(parts[0]) else {
                self = .invalid("/\(name.lowercased()) needs a message id and the text: /\(name.lowercased()) ID TEXT (ids are the numbers in brackets before each message, or last)")
                return
            }
            let text = parts[1].trimmingCharacters(in: .whitespaces)
            self = name.lowercased() == "reply" ? .reply(id: id, text: text) : .edit(id: id, text: text)
        case "react":
            let parts = argument.split(separator: " ", omittingEmptySubsequences: true)
            guard parts.count == 2, let id = ChatInput.handle(parts[0]) else {
                self = .invalid("/react needs a message id and one emoji: /react ID EMOJI (/unreact ID takes yours away)")
                return
            }
            self = .react(id: id, emoji: String(parts[1]))
        case "unreact":
            guard let id = ChatInput.handle(argument) else {
                self = .invalid("/unreact needs a message id: /unreact ID (or last)")
                return
            }
            self = .react(id: id, emoji: nil)
        case "fetch":
            if argument.isEmpty {
                self = .fetch(id: nil)
            } else if let id = ChatInput.handle(argument) {
                self = .fetch(id: id)
            } else {
                self = .invalid("/fetch takes the id of a message with a file: /fetch ID (or /fetch alone for the latest file received)")
            }
        case "delete", "delete!":
            // A deletion names its message explicitly: "last" is refused, so
            // a message that just arrived is never the one deleted by mistake.
            guard case let .some(.some(id)) = ChatInput.handle(argument) else {
                self = .invalid("/\(name.lowercased()) needs a message id (the number in brackets): /delete ID (here) or /delete! ID (for everyone)")
                return
            }
            self = .delete(id: id, forEveryone: name.hasSuffix("!"))
        case "disappear":
            guard let choice = DisappearingTimer.choices.first(where: { $0.name == argument.lowercased() }) else {
                self = .invalid("/disappear takes 1h, 1d, 1w or off")
                return
            }
            self = .disappear(seconds: choice.seconds)
        default:
            self = .invalid("unknown command /\(name): /help lists the commands; start with // to send a message beginning with /")
        }
    }
}
