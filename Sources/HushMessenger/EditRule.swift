import HushProtocol
import HushStore

/// Who may edit which message, and until when (docs/PROTOCOL.md §10.6): the
/// one rule the sender checks before sealing an edit and the receiver checks
/// before applying one, so that what one side refuses the other ignores.
enum EditRule {
    /// Why an edit is not made (sender) or not applied (receiver).
    enum Refusal: Equatable, CustomStringConvertible {
        /// No message with that client id in the conversation the edit came in.
        case unknownMessage
        /// The message is not the editor's own (another member's, or ours).
        case notTheAuthor
        /// A file, or anything else that is not a text or a reply.
        case notText
        /// Written more than the window after the original (author's clock).
        case windowPassed
        /// The message already had `ContentLimits.maxEditsPerMessage` edits.
        case tooManyEdits

        var description: String {
            switch self {
            case .unknownMessage: return "no such message in this conversation"
            case .notTheAuthor: return "only its author can edit a message"
            case .notText: return "only texts and replies can be edited, not files"
            case .windowPassed: return "messages can be edited for \(ContentLimits.editWindow / 3_600_000) hours after they were sent"
            case .tooManyEdits: return "a message can be edited at most \(ContentLimits.maxEditsPerMessage) times"
            }
        }
    }

    /// Whether `author` (an address) may change `message` with an edit
    /// written at `editedAt` (the author's clock), given its `edits` so far.
    static func check(_ message: StoredMessage, author: String, editedAt: Int64, edits: Int) -> Refusal? {
        guard message.sender == author else { return .notTheAuthor }
        guard message.contentType == "text/plain" else { return .notText }
        guard editedAt - message.createdAt <= Int64(ContentLimits.editWindow) else { return .windowPassed }
        guard edits < ContentLimits.maxEditsPerMessage else { return .tooManyEdits }
        return nil
    }
}
