import ArgumentParser
import Foundation
import HushClient
import HushTerminal

struct ChatCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "chat",
        abstract: "An interactive, real-time conversation in the terminal.",
        discussion: """
            Shows the latest messages, then stays connected: incoming messages appear as they arrive, \
            receipts update your messages (✓ sent, ✓✓ delivered, ✓✓ read), and the contact's typing \
            and online state show on the prompt line. "Online" means the contact has `hush chat` open \
            with you: it sends an encrypted, never-stored heartbeat every 20 seconds. Type a line and \
            press Enter to send; Ctrl-D or Ctrl-C leaves. When standard input is not a terminal, each \
            input line is sent as a message and the chat ends with the input.

            Examples:
              hush chat bob
            """)

    @OptionGroup var global: GlobalOptions
    @Argument(help: "The contact's name.") var name: String

    func run() async throws {
        try await reportingErrors {
            let session = ChatSession(client: try global.openAccount(), contact: name)
            let contact = name
            let interactive = isatty(STDIN_FILENO) == 1
            let screen = ChatScreen(prompt: "you> ", interactive: interactive)
            for message in try await session.recentMessages() {
                screen.show(Presentation.line(message, contact: contact))
            }
            try await session.start(show: { event in
                if let line = ChatCommand.line(for: event, contact: contact) { screen.show(line) }
            }, status: { screen.setStatus($0) })

            let rawMode = RawMode()
            defer { rawMode.restore() }
            for await byte in ChatScreen.inputBytes() {
                guard let event = screen.feed(byte) else { continue }
                switch event {
                case .edited:
                    await session.edited()
                case let .submitted(text):
                    do {
                        if let message = try await session.submit(text) { screen.show(Presentation.line(message, contact: contact)) }
                    } catch {
                        screen.show(Presentation.style.bad("not sent: \(error)"))
                    }
                case .finished:
                    break
                }
                if case .finished = event { break }
            }
            // Without a terminal, give the outbox and receipts a moment to leave before closing.
            await session.finish(flush: !interactive)
            print("")
        }
    }

    /// What the chat screen shows for an event, if it concerns this conversation.
    static func line(for event: MessengerEvent, contact: String) -> String? {
        switch event {
        case let .received(message, from) where from == contact:
            return Presentation.line(message, contact: contact)
        case let .statusChanged(id, status, to) where to == contact:
            return Presentation.style.dim("  message \(id.prefix(8)): ") + Presentation.mark(status)
        case let .resent(id, to) where to == contact:
            return Presentation.style.dim("  message \(id.prefix(8)): could not be decrypted by \(contact), sent again")
        case let .quarantined(reason):
            return Presentation.style.bad("set aside an undecryptable envelope: \(reason)")
        default:
            return nil
        }
    }
}
