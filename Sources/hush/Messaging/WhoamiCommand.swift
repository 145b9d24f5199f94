import ArgumentParser
import Foundation
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
            let account: HushAccount = try await global.openAccount()
            defer { global.finished(with: account) }
            let registered = try await account.isRegistered()
            // Another home registered this identity since (§19.4): it, not this one, is the relay's now.
            let replaced = await account.replacedAt()
            if global.json {
                try printJSON(["address": account.address, "identityKey": account.fingerprint.replacingOccurrences(of: " ", with: ""),
                               "relay": account.relayURL ?? NSNull(), "registered": registered && replaced == nil,
                               "replacedAt": replaced.map { $0.formatted(.iso8601) } ?? NSNull()])
            } else {
                print("Address:      \(account.address)")
                print("Identity key: \(account.fingerprint)")
                let state = replaced.map { "(replaced: another home registered this identity at \($0.formatted(.iso8601)); this home no longer uses the relay)" }
                    ?? (registered ? "(registered)" : "(not registered)")
                print("Relay:        \(account.relayURL ?? "none") \(state)")
            }
        }
    }
}

