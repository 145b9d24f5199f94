import ArgumentParser
import Foundation
import HushKit

struct EditCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "edit",
        abstract: "Edit one of your messages: its new text replaces the old, for you and the other side.",
        discussion: """
            ID is the message's id: the number in brackets `hush history NAME` shows, or the "id" of \
            `hush history NAME --json` and `hush send --json`. Only your own texts and replies can be \
            edited, for \(MessageVersion.editWindow / 3_600_000) hours after you sent them and at most \
            \(MessageVersion.maxEdits) times; anything else is refused with the reason (exit 1) and nothing is sent. \
            The other side's history shows the new text marked "(edited)", and search finds the new \
            text, not the old. `hush history NAME --edits ID` lists every version with its time.

            Examples:
              hush edit bob 42 "see you at 8, not 7"
              hush edit team 120 "agreed, with one change"
              echo "from a script" | hush edit bob 42
            """)

    @OptionGroup var global: GlobalOptions
    @Argument(help: "The contact's or group's name (contact:NAME or group:NAME when both exist).") var name: String
    @Argument(help: "The id of your message to edit (as `hush history` shows it).") var id: Int64
    @Argument(help: "The new text; read from standard input when omitted or '-'.") var text: String?

    func run() async throws {
        try await reportingErrors {
            let body: String
            if let text, text != "-" {
                body = text
            } else {
                body = String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self).trimmingCharacters(in: .newlines)
            }
            guard !body.isEmpty else { throw ValidationError("nothing to send: the new text is empty") }
            let account = try await global.openAccount()
            let room = try await Names(account: account).room(name).room
            let edited = try await room.edit(MessageID(rawValue: id), text: body)
            if global.json {
                try printJSON(Presentation.json(edited, contact: name))
            } else {
                print("[\(edited.id)] edited in your conversation with \(Presentation.peer(name))")
            }
        }
    }
}
