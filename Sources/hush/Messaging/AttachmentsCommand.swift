import ArgumentParser
import HushKit

struct AttachmentsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "attachments",
        abstract: "List files sent and received, with their state and progress.",
        discussion: """
            States: uploading (waiting for or in its upload; `hush sync` or `hush retry` sends it), uploaded, \
            available (received; nothing is downloaded until you run `hush fetch ID`), downloading, ready \
            (downloaded, checked and kept encrypted in the data directory: `hush fetch ID --out PATH` saves it), \
            failed (the reason follows).

            Nothing downloads unless you ask, or turn on automatic download for files up to a size \
            (--auto-download MiB; 0 turns it off).

            Examples:
              hush attachments
              hush attachments bob --json
              hush attachments --auto-download 10
            """)

    @OptionGroup var global: GlobalOptions
    @Argument(help: "Only the attachments exchanged with this contact.") var name: String?
    @Option(parsing: .unconditional, help: ArgumentHelp("From now on, download (and check) received files up to this size at every `hush sync`, and as they arrive while `hush daemon`, `hush chat` or `hush listen` runs; 0 turns it off. Off unless set.",
                               valueName: "MiB")) var autoDownload: Int?

    func validate() throws {
        if let autoDownload, !(0...4_096).contains(autoDownload) { throw ValidationError("--auto-download must be 0…4096 (MiB)") }
    }

    func run() async throws {
        try await reportingErrors {
            let account = try await global.openAccount()
            if let autoDownload {
                try await account.setAutoDownload(maxBytes: autoDownload == 0 ? nil : Int64(autoDownload) << 20)
                print(autoDownload == 0 ? "Automatic download is off: files download only with `hush fetch ID`."
                      : "Received files up to \(autoDownload) MiB now download at every `hush sync` (kept encrypted; `hush fetch ID --out PATH` saves one).")
                return
            }
            let list = try await Self.attachments(account, with: name)
            if global.json {
                try printJSON(["attachments": list.map { Self.json($0.attachment, contact: $0.contact) }])
                return
            }
            if list.isEmpty { print(name.map { "No attachments with \($0)." } ?? "No attachments yet.") }
            for (attachment, contact) in list {
                let direction = attachment.direction == .outgoing ? "to" : "from"
                print("[\(attachment.id)] \(direction) \(Presentation.peer(contact)): \(Presentation.oneLine(attachment.fileName, length: 48)) "
                      + "(\(attachment.mediaType), \(ProgressDisplay.bytes(attachment.size))) \(Self.state(attachment))")
                if let error = attachment.lastError, [.failed, .uploading, .available].contains(attachment.state) {
                    print("    \(Presentation.oneLine(error, length: 160))")
                }
            }
        }
    }

    /// The state, with how far a transfer in progress has come.
    /// Every attachment (or those with the contact `name`), each with the
    /// name of its conversation (group:NAME for a group's).
    static func attachments(_ account: HushAccount, with name: String?) async throws -> [(attachment: Attachment, contact: String)] {
        if let name {
            let contact = try await Names(account: account).contact(name)
            return try await account.room(with: contact.id).attachments().map { ($0, contact.name) }
        }
        var titles: [ConversationID: String] = [:]
        var list: [(attachment: Attachment, contact: String)] = []
        for attachment in try await account.attachments() {
            if titles[attachment.conversation] == nil, let summary = try? await account.room(attachment.conversation).summary() {
                titles[attachment.conversation] = summary.isGroup ? "group:" + summary.title : summary.title
            }
            list.append((attachment, titles[attachment.conversation] ?? "?"))
        }
        return list
    }

    static func state(_ attachment: Attachment) -> String {
        switch attachment.state {
        case .uploading, .downloading:
            // `transferred` counts blob bytes: the file plus its chunks' overhead and padding.
            let total = max(attachment.transferSize, 1)
            return "\(attachment.state.rawValue) \(min(100, attachment.transferred * 100 / total))%"
        case .available where attachment.transferred > 0:
            // An interrupted download: `hush fetch ID` resumes it.
            return "available, \(min(100, attachment.transferred * 100 / max(attachment.transferSize, 1)))% kept"
        default:
            return attachment.state.rawValue
        }
    }

    static func json(_ attachment: Attachment, contact: String) -> [String: Any] {
        var object: [String: Any] = [
            "id": attachment.id.rawValue, "messageId": attachment.message.rawValue, "contact": contact,
            "direction": attachment.direction == .outgoing ? "out" : "in", "fileName": attachment.fileName,
            "mediaType": attachment.mediaType, "size": attachment.size, "state": attachment.state.rawValue,
            "transferred": attachment.transferred, "createdAt": attachment.createdAt,
            "storedHere": attachment.isStoredHere,
        ]
        if let error = attachment.lastError { object["error"] = error }
        return object
    }
}

struct FetchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fetch",
        abstract: "Download a received file, check it, and save it with --out.",
        discussion: """
            The blob is downloaded from the relay and checked chunk by chunk and against the digest its \
            sender gave; it stays encrypted in the data directory. A file already there (fetched before, \
            or one you sent: the sender keeps its own copy) is not downloaded again. With --out it is decrypted into an \
            unnamed file in PATH's folder, which takes the name PATH only once the whole file checked: \
            there is never a partial or unchecked file at PATH, no decrypted bytes are left behind when \
            the fetch fails or is killed, and an existing PATH is never replaced.

            Examples:
              hush fetch 3 --out ~/Pictures/photo.jpg
              hush fetch 3 --json
            """)

    @OptionGroup var global: GlobalOptions
    @Argument(help: "The attachment's id, as `hush attachments` shows it.") var id: Int64
    @Option(help: "Save the file here (a file that does not exist yet).") var out: String?

    func run() async throws {
        try await reportingErrors {
            let account = try await global.openAccount()
            let progress = ProgressDisplay(json: global.json, label: "attachment \(id)")
            let attachment = try await account.fetch(AttachmentID(rawValue: id), to: out.map(CommandContext.resolve), progress: progress.handler)
            if global.json {
                var object = AttachmentsCommand.json(attachment, contact: "")
                object.removeValue(forKey: "contact")
                if let out { object["savedTo"] = out }
                try printJSON(object)
            } else if let out {
                print("[\(attachment.id)] \(Presentation.oneLine(attachment.fileName, length: 48)) saved to \(out) (\(ProgressDisplay.bytes(attachment.size)), checked)")
            } else {
                print("[\(attachment.id)] \(Presentation.oneLine(attachment.fileName, length: 48)) downloaded and checked; `hush fetch \(attachment.id) --out PATH` saves it")
            }
        }
    }
}
