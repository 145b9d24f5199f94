import Foundation
import HushClient
import HushKit

// TEMPORARY (branch kit-cli only): replaced by the lifecycle half's opening.
extension GlobalOptions {
    func accountHome() throws -> AccountHome {
        try AccountHome(home: home, passphraseFile: passphraseFile, diagnostics: { printError($0) })
    }

    func openAccount(relayOverride: String? = nil) async throws -> HushAccount {
        let home = try accountHome()
        let environment = ProcessInfo.processInfo.environment
        let passphrase: String
        if let passphraseFile {
            passphrase = String((try String(contentsOfFile: passphraseFile, encoding: .utf8)).split(separator: "\n").first ?? "")
        } else {
            passphrase = environment["HUSH_PASSPHRASE"] ?? ""
        }
        return try await HushAccount.open(in: home.path, keys: .passphrase(passphrase), relayURL: relayOverride)
    }
}

/// Prints a JSON object with sorted keys on stdout.
func printJSON(_ object: [String: Any]) throws {
    let data = try JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
    print(String(decoding: data, as: UTF8.self))
}
