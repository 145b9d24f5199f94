import ArgumentParser
import Foundation
import HushKit

struct DeleteCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete",
        abstract: "Delete a message here, or for everyone in the conversation (--for-everyone).",
        discussion: """
            ID is the message's id: the number in brackets `hush history NAME` shows, or the "id" of \
            `hush history NAME --json`. Without --for-everyone the message is deleted on this device \
            only: its text, its earlier versions (if edited), its file and its search entry go, and history \
            shows it as deleted. With \
            --for-everyone every device in the conversation deletes it too; only your own messages, \
            within 48 hours of sending them. An ID not in NAME's conversation changes nothing.

            Examples:
              hush delete bob 42
              hush delete bob 43 --for-everyone
              hush delete team 120 --for-everyone
            """)

    @OptionGroup var global: GlobalOptions
    @Argument(help: "The contact's or group's name (contact:NAME or group:NAME when both exist).") var name: String
    @Argument(help: "The id of the message to delete (as `hush history` shows it).") var id: Int64
    @Flag(help: "Also delete it on every device in the conversation (your own message, within 48 hours).") var forEveryone = false

    func run() async throws {
        try await reportingErrors {
            let account = try await global.openAccount()
            let room = try await Names(account: account).room(name).room
            try await room.delete(MessageID(rawValue: id), forEveryone: forEveryone)
            if global.json {
                try printJSON(["id": id, "contact": name, "deleted": true, "forEveryone": forEveryone])
            } else {
                print(forEveryone ? "[\(id)] deleted for everyone" : "[\(id)] deleted here")
            }
        }
    }
}
