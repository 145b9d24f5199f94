// An echo bot on HushKit: it answers every message with "echo: TEXT".
//
// It uses only HushKit's public API, as any app embedding Hush would:
//
//     EchoBot HOME RELAY_URL
//
// HOME holds the bot's account (made on the first run). The account is
// unlocked by a random application key kept in the file ECHO_BOT_KEY_FILE
// names (written 0600 on the first run; a real app would keep it in the
// platform's keychain), so no passphrase is asked. It prints its address,
// then "ready", then one line per answer. Stop it with SIGINT or SIGTERM:
// what arrives while it is down waits at the relay and is answered at the
// next start.
import Foundation
import HushKit

@main
struct EchoBot {
    static func main() async {
        let arguments = CommandLine.arguments
        guard arguments.count == 3 else {
            FileHandle.standardError.write(Data("usage: EchoBot HOME RELAY_URL (and ECHO_BOT_KEY_FILE=FILE)\n".utf8))
            exit(64)
        }
        do {
            try await run(home: arguments[1], relay: arguments[2])
        } catch {
            // HushError says what went wrong and what to do.
            FileHandle.standardError.write(Data("echo bot: \(error)\n".utf8))
            exit(1)
        }
    }

    static func run(home: String, relay: String) async throws {
        guard let keyFile = ProcessInfo.processInfo.environment["ECHO_BOT_KEY_FILE"] else {
            throw BotError("set ECHO_BOT_KEY_FILE to the file that holds (or will hold) the bot's key")
        }
        let account = try await openOrCreate(home: home, relay: relay, keyFile: keyFile)
        defer { account.close() }
        // A first run cut off before it registered registers now.
        if try await !account.isRegistered() { try await account.register() }
        say("address: \(account.address)")

        // Subscribe before going live, so nothing that arrives is missed.
        let events = account.events()
        account.startLive()
        // What arrived while the bot was offline.
        _ = try await account.sync()
        try await answerUnread(account)
        say("ready")

        for await event in events {
            switch event {
            case .messageReceived, .messageRequest, .missed:
                // Whatever arrived (or was missed) is in the store: answer what is unread.
                // A failure is told and the bot goes on: the message stays unread and
                // is answered with the next one.
                do { try await answerUnread(account) } catch { say("could not answer yet: \(error)") }
            case let .syncFailed(error):
                say("could not take in what arrived: \(error)")
            default:
                break
            }
            }
    }

    /// Accepts every message request (a bot talks to anyone), then answers each
    /// unread message and marks its conversation read.
    static func answerUnread(_ account: HushAccount) async throws {
        for request in try await account.messageRequests() {
            _ = try await account.acceptRequest(from: request.contact.id)
        }
        for conversation in try await account.conversations() where conversation.unreadCount > 0 && !conversation.isGroup {
            let room = try await account.room(conversation.id)
            let page = try await room.history(limit: conversation.unreadCount)
            for message in page.messages where message.direction == .incoming && message.kind == .text && message.readAt == nil {
                let answer = try await room.send("echo: \(message.text)")
                say("answered message \(message.id) with message \(answer.id) (\(answer.status.rawValue))")
                // Read up to this one only: what arrived meanwhile stays unread for the next pass.
                try await room.markRead(upTo: message.id)
            }
        }
    }

    static func openOrCreate(home: String, relay: String, keyFile: String) async throws -> HushAccount {
        if let key = FileManager.default.contents(atPath: keyFile) {
            return try await HushAccount.open(in: home, keys: .applicationKey([UInt8](key)), relayURL: relay)
        }
        let key = KeyProvider.newApplicationKey()
        guard FileManager.default.createFile(atPath: keyFile, contents: Data(key), attributes: [.posixPermissions: 0o600]) else {
            throw BotError("could not write the key file \(keyFile)")
        }
        return try await HushAccount.create(in: home, keys: .applicationKey(key), displayName: "echo bot", relayURL: relay)
    }
}

/// One line on standard output, written at once (a pipe would buffer `print`).
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

struct BotError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
