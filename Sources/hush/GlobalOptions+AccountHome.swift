import Foundation
import HushClient

extension GlobalOptions {
    /// The data directory these options name, with the passphrase sources
    /// they allow; timings (HUSH_TIMINGS=1) go to stderr like errors do.
    func accountHome() throws -> AccountHome {
        try AccountHome(home: home, passphraseFile: passphraseFile, diagnostics: { printError($0) })
    }

    /// Opens the account ready to use (see `Account.open`).
    func openAccount(relayOverride: String? = nil, offline: Bool = false) throws -> MessagingClient {
        try Account.open(accountHome(), relayOverride: relayOverride, offline: offline)
    }
}

/// Prints a JSON object with sorted keys on stdout.
func printJSON(_ object: [String: Any]) throws {
    let data = try JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
    print(String(decoding: data, as: UTF8.self))
}
