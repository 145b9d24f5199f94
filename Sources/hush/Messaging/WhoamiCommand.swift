import ArgumentParser
import Foundation
import HushClient
import HushKit

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
            let client = try await global.openAccount()
            let registered = try await client.isRegistered()
            if global.json {
                try printJSON(["address": client.address, "identityKey": client.fingerprint.replacingOccurrences(of: " ", with: "").lowercased(),
                               "relay": client.relayURL ?? NSNull(), "registered": registered])
            } else {
                print("Address:      \(client.address)")
                print("Identity key: \(client.fingerprint)")
                print("Relay:        \(client.relayURL ?? "none") \(registered ? "(registered)" : "(not registered)")")
            }
        }
    }
}

