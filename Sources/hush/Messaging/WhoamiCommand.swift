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
            let context = try MessengerContext.open(global, offline: true)
            let registered = try await context.messenger.isRegistered()
            let key = Hex.encode(context.identity.publicKey.rawRepresentation)
            let fingerprint = identityFingerprint(publicKey: context.identity.publicKey.rawRepresentation)
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

