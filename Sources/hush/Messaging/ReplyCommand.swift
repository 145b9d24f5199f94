import ArgumentParser
import Foundation
import HushKit

struct ReplyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reply",
        abstract: "Reply to a message, quoting it; prints its status once the relay has it.",
        discussion: """
            ID is the message's id: the number in brackets `hush history NAME` shows, or the "id" of \
            `hush history NAME --json` and `hush send --json`. The reply goes to that message's \
            conversation like `hush send`, and the other side sees the quote when it has the message \
            too. An ID not in NAME's conversation sends nothing.

            Exits like `hush send`: 0 when the relay took it, 25 when it waits in the outbox, 22 when \
            the relay refused it.

            Examples:
              hush reply bob 42 "yes, at 8"
              hush reply team 120 "agreed"
              echo "from a script" | hush reply bob 42
            """)

    @OptionGroup var global: GlobalOptions
    @Argument(help: "The contact's or group's name (contact:NAME or group:NAME when both exist).") var name: String
    @Argument(help: "The id of the message to reply to (as `hush history` shows it).") var id: Int64
    @Argument(help: "The text; read from standard input when omitted or '-'.") var text: String?

    func run() async throws {
        try await reportingErrors {
            let body: String
            if let text, text != "-" {
                body = text
            } else {
                body = String(decoding: CommandInput.readAll(), as: UTF8.self).trimmingCharacters(in: .newlines)
            }
            guard !body.isEmpty else { throw ValidationError("nothing to send: the reply is empty") }
            let account = try await global.openAccount()
            let room = try await Names(account: account).room(name).room
            let sent = try await room.reply(to: MessageID(rawValue: id), text: body)
            if global.json {
                try printJSON(Presentation.json(sent.message, contact: name))
            } else {
                print("[\(sent.message.id)] to \(name), replying to [\(id)]: \(Presentation.mark(sent.message.status))")
            }
            try SendCommand.exitForQueued(sent)
        }
    }
}
