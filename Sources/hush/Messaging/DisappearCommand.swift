import ArgumentParser
import Foundation
import HushKit

struct DisappearCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "disappear",
        abstract: "Set a conversation's disappearing-message timer (1h, 1d, 1w or off).",
        discussion: """
            Messages sent from then on, by anyone in the conversation, disappear TIMER after they \
            are read: on the reader's device from when it is marked read, on the sender's when the \
            read receipt comes. Everyone in the conversation sees the change in its history. It \
            does not protect against a screenshot, a copy, or a modified client (SECURITY.md).

            Examples:
              hush disappear bob 1d
              hush disappear team 1w
              hush disappear bob off
            """)

    @OptionGroup var global: GlobalOptions
    @Argument(help: "The contact's or group's name (contact:NAME or group:NAME when both exist).") var name: String
    @Argument(help: "How long a message lives once read: 1h, 1d, 1w, or off.") var timer: String
    /// For tests of expiry only: the timer in seconds, in place of TIMER's.
    @Option(name: .customLong("seconds"), help: .hidden) var seconds: UInt32?

    func validate() throws {
        guard DisappearingTimer.choices.contains(where: { $0.name == timer }) else {
            throw ValidationError("the timer is one of 1h, 1d, 1w or off; got '\(Presentation.peer(timer))'")
        }
    }

    func run() async throws {
        try await reportingErrors {
            let account = try await global.openAccount()
            let room = try await Names(account: account).room(name).room
            let chosen = seconds ?? DisappearingTimer.choices.first(where: { $0.name == timer })?.seconds ?? 0
            let message = try await room.setDisappearingTimer(chosen)
            if global.json {
                try printJSON(["id": message.id.rawValue, "contact": name, "disappearingSeconds": chosen == 0 ? NSNull() : Int(chosen) as Any])
            } else {
                print("[\(message.id.rawValue)] you \(message.text)")
            }
        }
    }
}
