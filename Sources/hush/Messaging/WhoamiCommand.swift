import ArgumentParser
import Foundation
import HushCrypto
import HushStore

struct WhoamiCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "whoami",
        abstract: "Show your address and identity key fingerprint.",
        discussion: """
            Your address (hush1…) contains your identity key: give it to your contacts. The fingerprint \
            is the same key in hex, for reading aloud.

            Examples:
              hush whoami
              hush whoami --json
            """)

    @OptionGroup var global: GlobalOptions

    func run() async throws {
        try await reportingErrors {
            let context = try MessengerContext.open(global)
            let registered = try await context.messenger.isRegistered()
            let key = Hex.encode(context.identity.publicKey.rawRepresentation)
            let fingerprint = stride(from: 0, to: key.count, by: 4).map { offset -> String in
                let start = key.index(key.startIndex, offsetBy: offset)
                return String(key[start..<key.index(start, offsetBy: 4)])
            }.joined(separator: " ")
            if global.json {
                try printJSON(["address": context.identity.address.description, "identityKey": key,
                               "relay": context.relayURL ?? NSNull(), "registered": registered])
            } else {
                print("Address:      \(context.identity.address)")
                print("Identity key: \(fingerprint)")
                print("Relay:        \(context.relayURL ?? "none") \(registered ? "(registered)" : "(not registered)")")
            }
        }
    }
}

