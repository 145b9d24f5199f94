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
            let registration = try await account.relayRegistration()
            if global.json {
                var replacedAt: Any = NSNull()
                if case let .replaced(at) = registration { replacedAt = at.formatted(.iso8601) }
                try printJSON(["address": account.address, "identityKey": account.fingerprint.replacingOccurrences(of: " ", with: ""),
                               "relay": account.relayURL ?? NSNull(), "registered": registration == .registered,
                               "restoredNotRegistered": registration == .restoredNotRegistered, "replacedAt": replacedAt])
            } else {
                print("Address:      \(account.address)")
                print("Identity key: \(account.fingerprint)")
                print("Relay:        \(account.relayURL ?? "none") (\(Self.describe(registration)))")
            }
        }
    }

    /// How a home stands with its relay, in words (shared with `hush doctor`).
    static func describe(_ registration: RelayRegistration) -> String {
        switch registration {
        case .registered: "registered"
        case .notRegistered: "not registered"
        case .restoredNotRegistered:
            "restored from a backup, not registered yet: `hush backup sessions` registers it; until then this home sends and fetches nothing"
        case let .replaced(at):
            // Another home registered this identity since (§19.4): it, not this one, is the relay's now.
            "replaced: another home registered this identity at \(at.formatted(.iso8601)); this home no longer uses the relay"
        }
    }
}
