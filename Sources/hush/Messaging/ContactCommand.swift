import ArgumentParser
import Foundation
import HushKit

struct ContactCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "contact",
        abstract: "Add, list, remove contacts, and accept a changed identity key.",
        subcommands: [Add.self, List.self, Remove.self, Accept.self]
    )

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "add",
            abstract: "Add a contact by address; fetches and verifies their prekey bundle and starts a session.",
            discussion: """
                The address (hush1…) contains the contact's identity key, so the relay cannot hand out \
                keys of someone else without the bundle failing verification. Adding a name that already \
                exists with a different address records the new identity key as pending and blocks \
                sending until `hush contact accept NAME`; adding it again with the address it had \
                discards that change. An address that is already another contact's is refused.

                Examples:
                  hush contact add bob hush1q…
                """)
        @OptionGroup var global: GlobalOptions
        @Argument(help: "A local name for the contact.") var name: String
        @Argument(help: "Their address (hush1…), from `hush whoami` on their side.") var address: String

        func validate() throws {
            try NameRule.checkContact(name)
        }

        func run() async throws {
            try await reportingErrors {
                let account = try await global.openAccount()
                let waitingChange = try await account.contacts().contains { $0.name == name && $0.verification == .changed }
                let contact = try await account.addContact(name: name, address: address)
                if global.json {
                    try printJSON(["name": contact.name, "address": contact.address, "verification": contact.verification.rawValue])
                } else if waitingChange && contact.verification != .changed {
                    print("Kept \(contact.name)'s address (\(contact.address)); the identity key change that waited was discarded.")
                } else {
                    print("Added \(contact.name) (\(contact.address)); session started.")
                    print("Compare safety numbers with `hush verify \(contact.name)` to rule out a relay in the middle.")
                }
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List contacts with their verification state.")
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            try await reportingErrors {
                let contacts = try await global.openAccount().contacts()
                if global.json {
                    try printJSON(["contacts": contacts.map { ["name": $0.name, "address": $0.address, "verification": $0.verification.rawValue,
                                                               "identityChanged": $0.verification == .changed, "standing": $0.standing.rawValue,
                                                               "profileName": $0.profileName.map { $0 as Any } ?? NSNull()] }])
                    return
                }
                if contacts.isEmpty { print("No contacts yet: `hush contact add NAME ADDRESS`.") }
                for contact in contacts {
                    let state: String
                    switch contact.verification {
                    case .verified: state = Presentation.style.good("verified")
                    case .unverified: state = "unverified"
                    case .changed: state = Presentation.style.bad("IDENTITY CHANGED: sending blocked; `hush verify \(Presentation.peer(contact.name))` then `hush contact accept \(Presentation.peer(contact.name))`")
                    }
                    let chosen = contact.profileName.flatMap { $0 == contact.name ? nil : "  (calls themselves \"\(Presentation.oneLine($0, length: 64))\")" } ?? ""
                    // A stranger whose request waits is no contact yet, and a blocked one is not to be written to: say so.
                    let standing = switch contact.standing {
                    case .accepted: ""
                    case .requested: "  (message request, not accepted: `hush requests`)"
                    case .blocked: "  (blocked)"
                    }
                    print("\(Presentation.peer(contact.name))  \(contact.address)  \(state)\(chosen)\(standing)")
                }
            }
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "remove", abstract: "Remove a contact with its conversation, messages and session.")
        @OptionGroup var global: GlobalOptions
        @Argument var name: String

        func run() async throws {
            try await reportingErrors {
                let account = try await global.openAccount()
                try await account.removeContact(Names(account: account).contact(name).id)
                print("Removed \(name) and the conversation with them.")
            }
        }
    }

    struct Accept: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "accept",
            abstract: "Accept a contact's changed identity key (after comparing the new safety number).",
            discussion: """
                Examples:
                  hush verify bob          # compare the new number with bob
                  hush contact accept bob
                """)
        @OptionGroup var global: GlobalOptions
        @Argument var name: String

        func run() async throws {
            try await reportingErrors {
                let account = try await global.openAccount()
                let contact = try await Names(account: account).contact(name)
                guard contact.verification == .changed else {
                    throw CommandError(.contactProblem, "\(name) has no changed identity key to accept")
                }
                try await account.acceptIdentityChange(of: contact.id)
                print("Accepted \(name)'s new identity key; a new session started. The contact is unverified until you compare safety numbers again.")
            }
        }
    }
}
