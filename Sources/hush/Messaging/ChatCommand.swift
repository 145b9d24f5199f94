import ArgumentParser
import Foundation
import HushCrypto
import HushMessenger
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

    static let heartbeatSeconds: UInt64 = 20
    static let onlineWindowMilliseconds: Int64 = 45_000
    static let typingIdleMilliseconds: Int64 = 4_000

    func run() async throws {
        try await reportingErrors {
            let messenger = try MessengerContext.open(global).messenger
            let contact = name
            let interactive = isatty(STDIN_FILENO) == 1
            let screen = ChatScreen(prompt: "you> ", interactive: interactive)
            for message in try await messenger.history(with: contact, limit: 20) {
                screen.show(Presentation.line(message, contact: contact))
            }
            try await messenger.markRead(contact: contact)
            let presence = Presence()

            let live = Task { await messenger.runLive() }
            let retries = Task { await messenger.runOutboxRetries() }
            let heartbeat = Task {
                while !Task.isCancelled {
                    try? await messenger.sendTyping(false, to: contact)
                    try? await Task.sleep(nanoseconds: ChatCommand.heartbeatSeconds * 1_000_000_000)
                }
            }
            let events = Task {
                for await event in messenger.eventStream {
                    switch event {
                    case let .received(message, from) where from == contact:
                        screen.show(Presentation.line(message, contact: contact))
                        presence.seen()
                        _ = try? await messenger.markRead(contact: contact)
                    case let .statusChanged(id, status, to) where to == contact:
                        screen.show(Presentation.style.dim("  message \(id.prefix(8)): ") + Presentation.mark(status))
                    case let .typing(from, active) where from == contact:
                        presence.seen(typing: active)
                    case let .resent(id, to) where to == contact:
                        screen.show(Presentation.style.dim("  message \(id.prefix(8)): could not be decrypted by \(contact), sent again"))
                    case let .quarantined(reason):
                        screen.show(Presentation.style.bad("set aside an undecryptable envelope: \(reason)"))
                    case let .connection(online):
                        presence.relayOnline = online
                    default:
                        break
                    }
                    screen.setStatus(presence.status(for: contact))
                }
            }
            let statusTicker = Task {
                while !Task.isCancelled {
                    try? await Task.sleep(nanoseconds: 2_000_000_000)
                    screen.setStatus(presence.status(for: contact))
                }
            }

            let rawMode = RawMode()
            defer { rawMode.restore() }
            var typingSince: Int64?
            for await byte in ChatScreen.inputBytes() {
                guard let event = screen.feed(byte) else { continue }
                switch event {
                case .edited:
                    let now = SystemClock().now()
                    if typingSince == nil || now - typingSince! > ChatCommand.typingIdleMilliseconds {
                        typingSince = now
                        try? await messenger.sendTyping(true, to: contact)
                    }
                case let .submitted(text):
                    typingSince = nil
                    let trimmed = text.trimmingCharacters(in: .whitespaces)
                    guard !trimmed.isEmpty else { continue }
                    do {
                        let message = try await messenger.send(text: trimmed, to: contact)
                        screen.show(Presentation.line(message, contact: contact))
                    } catch {
                        screen.show(Presentation.style.bad("not sent: \(error)"))
                    }
                case .finished:
                    break
                }
                if case .finished = event { break }
            }
            if !interactive {
                // Give the outbox and receipts a moment to leave before closing.
                _ = await messenger.flushOutbox()
            }
            for task in [live, retries, heartbeat, events, statusTicker] { task.cancel() }
            print("")
        }
    }
}

/// What the prompt line says about the contact and the relay.
final class Presence: @unchecked Sendable {
    private let clock: any TimeSource
    private let lock = NSLock()
    private var lastSeen: Int64 = 0
    private var typing = false
    private var online = false

    init(clock: any TimeSource = SystemClock()) { self.clock = clock }

    var relayOnline: Bool {
        get { lock.withLock { online } }
        set { lock.withLock { online = newValue } }
    }

    func seen(typing active: Bool = false) {
        lock.withLock {
            lastSeen = clock.now()
            typing = active
        }
    }

    func status(for contact: String) -> String {
        lock.withLock {
            guard online else { return "relay offline, reconnecting" }
            let now = clock.now()
            let present = now - lastSeen < ChatCommand.onlineWindowMilliseconds
            if present && typing { return "\(contact) is typing…" }
            return present ? "\(contact) is online" : ""
        }
    }
}
