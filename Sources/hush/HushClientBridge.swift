// TRANSITIONAL: delete this file with HushClient. It keeps the commands not
// yet moved onto HushKit compiling (the older `openAccount`), and reports
// HushKit's errors through the older `UserFacingError` mapping until
// ErrorReporting.swift calls `lifecycleReport` itself.
import Foundation
import HushClient
import HushKit

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

extension HushError: UserFacingError {
    public var exitCode: Int32 { bridgedReport.status.rawValue }
    public var userMessage: String { bridgedReport.message }

    /// `lifecycleReport`, then the two relay kinds the lifecycle commands
    /// (`hush register`, `hush init --relay`) meet.
    private var bridgedReport: (status: ExitStatus, message: String) {
        if let report = lifecycleReport { return report }
        switch kind {
        case .notRegistered:
            return (.relayUnavailable, "this identity is not registered with a relay: run `hush init --relay URL` (or `hush register --relay URL`)")
        case .relayUnavailable:
            return (.relayUnavailable, description)
        default:
            return (.failure, description)
        }
    }
}
