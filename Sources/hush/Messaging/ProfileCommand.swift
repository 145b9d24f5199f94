import ArgumentParser
import Foundation
import HushKit
import HushTerminal

struct ProfileCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "profile",
        abstract: "Show or set the display name your contacts see.",
        discussion: """
            Your display name is sealed to every accepted contact (never to a stranger before you accept \
            them) and shown on their side beside the name they gave you: in their message requests, so \
            they can tell who wrote, and in their contact list. It is yours to choose and proves nothing: \
            they should still compare safety numbers. Contacts added later get it with the first message \
            you send them.

            Examples:
              hush profile
              hush profile --name "Alice Liddell"
            """)

    @OptionGroup var global: GlobalOptions
    @Option(help: "The display name to send (1 to 64 bytes of text).") var name: String?

    func run() async throws {
        try await reportingErrors {
            let account: HushAccount = try await global.openAccount()
            defer { global.finished(with: account) }
            if let name {
                let queued: Int
                do {
                    queued = try await account.setDisplayName(name)
                } catch let error as HushError where error.kind == .invalidInput {
                    throw ValidationError(error.description) // empty, or longer than 64 bytes
                }
                let current = try await account.displayName()
                if global.json {
                    try printJSON(["name": current ?? NSNull(), "queuedFor": queued])
                } else {
                    print("Your display name is now \"\(UntrustedText.sanitized(current ?? "", keepingLineBreaks: false))\"; "
                          + "it is on its way to \(queued) contact(s).")
                }
                return
            }
            let current = try await account.displayName()
            if global.json {
                try printJSON(["name": current ?? NSNull()])
            } else {
                // Control characters are not refused (any client can send a name holding them, and
                // ProfileNameEndToEndTests proves receivers defuse them): defused here too.
                print(current.map { "Your display name: \"\(UntrustedText.sanitized($0, keepingLineBreaks: false))\"" }
                      ?? "No display name: set one with `hush profile --name NAME`.")
            }
        }
    }
}
