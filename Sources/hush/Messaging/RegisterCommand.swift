import ArgumentParser
import HushKit

struct RegisterCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "register",
        abstract: "Publish your identity and prekeys to a relay.",
        discussion: """
            Generates a signed X25519 prekey, an ML-KEM-768 last-resort prekey and one-time prekeys of \
            both kinds, keeps their private halves in the encrypted database, and publishes the public \
            halves (signed by your identity key) to the relay. `hush init --relay URL` does this for you.

            Examples:
              hush register --relay http://127.0.0.1:8080
            """)

    @OptionGroup var global: GlobalOptions

    @Option(help: ArgumentHelp("The relay to register with (remembered for later commands).", valueName: "URL"))
    var relay: String?

    func validate() throws {
        if let relay { try RelayURLRule.check(relay) }
    }

    func run() async throws {
        try await reportingErrors {
            let account: HushAccount = try await global.openAccount(relayOverride: relay)
            defer { global.finished(with: account) }
            try await account.register()
            // register() refuses an account without a relay, so there is one here.
            let url = account.relayURL ?? ""
            if global.json {
                try printJSON(["relay": url, "address": account.address, "registered": true])
            } else {
                print("Registered \(account.address) with \(url)")
            }
        }
    }
}
