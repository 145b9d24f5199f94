import ArgumentParser
import Foundation
import HushKit

struct ReactCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "react",
        abstract: "React to a message with an emoji, or take your reaction back (--remove).",
        discussion: """
            ID is the message's id: the number in brackets `hush history NAME` shows, or the "id" of \
            `hush history NAME --json`. Each person has at most one reaction per message: a new one \
            replaces yours, --remove takes it away. EMOJI is one character (one emoji, flags and \
            skin tones included) of at most \(Reaction.maxEmojiBytes) bytes. `hush history` shows the \
            reactions under each message. An ID not in NAME's conversation sends nothing.

            Examples:
              hush react bob 42 👍
              hush react team 120 🎉
              hush react bob 42 --remove
            """)

    @OptionGroup var global: GlobalOptions
    @Argument(help: "The contact's or group's name (contact:NAME or group:NAME when both exist).") var name: String
    @Argument(help: "The id of the message to react to (as `hush history` shows it).") var id: Int64
    @Argument(help: "The emoji (one character).") var emoji: String?
    @Flag(help: "Take your reaction to the message away instead.") var remove = false

    func validate() throws {
        switch (emoji, remove) {
        case (nil, false): throw ValidationError("give the EMOJI to react with, or --remove to take your reaction away")
        case (_?, true): throw ValidationError("give either an EMOJI or --remove, not both")
        case let (emoji?, false):
            guard Reaction.isAcceptableEmoji(emoji) else {
                throw ValidationError("a reaction is one emoji (one character, at most \(Reaction.maxEmojiBytes) bytes, no control characters); got \(emoji.isEmpty ? "nothing" : "'\(Presentation.peer(emoji))'")")
            }
        case (nil, true): break
        }
    }

    func run() async throws {
        try await reportingErrors {
            let account = try await global.openAccount()
            let room = try await Names(account: account).room(name).room
            let message = MessageID(rawValue: id)
            try await room.react(to: message, with: remove ? nil : emoji)
            let reactions = try await account.message(message)?.reactions ?? []
            if global.json {
                try printJSON(["id": id, "contact": name, "reaction": remove ? NSNull() : emoji as Any,
                               "reactions": Presentation.json(reactions)])
            } else {
                print(remove ? "[\(id)] your reaction is taken away" : "[\(id)] you reacted \(emoji ?? "")")
            }
        }
    }
}
