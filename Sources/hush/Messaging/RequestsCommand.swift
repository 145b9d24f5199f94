import ArgumentParser
import HushKit

struct RequestsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "requests",
        abstract: "Message requests: strangers who wrote first. Accept to answer them, or block them.",
        discussion: """
            A message from someone who is not your contact is kept as a message request under a name \
            like unknown-1a2b3c4d. Until you accept it nothing is sent back to them: no delivery or read \
            receipt, no typing indicator, no delivery credential, so they cannot even tell whether you \
            exist or read it. Blocking drops their further messages unread and replaces your delivery \
            credential if they held it.

            Examples:
              hush requests
              hush requests accept unknown-1a2b3c4d --name carol
              hush requests block unknown-1a2b3c4d
              hush requests list --blocked
            """,
        subcommands: [List.self, Accept.self, Block.self],
        defaultSubcommand: List.self
    )

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List pending message requests (or blocked contacts).")
        @OptionGroup var global: GlobalOptions
        @Flag(help: "List blocked contacts instead.") var blocked = false

        func run() async throws {
            try await reportingErrors {
                let account = try await global.openAccount()
                let requests = try await account.messageRequests(blocked: blocked)
                let removed = blocked ? 0 : try await account.messageRequestsRemovedForRoom()
                if global.json {
                    var output: [String: Any] = [(blocked ? "blocked" : "requests"): requests.map { request -> [String: Any] in
                        var object: [String: Any] = ["name": request.contact.name, "address": request.contact.address,
                                                     "messages": request.messageCount, "firstSeenAt": request.contact.createdAt]
                        if let last = request.lastMessage { object["lastMessage"] = Presentation.json(last, contact: request.contact.name) }
                        if !request.groupInvitations.isEmpty { object["invitations"] = request.groupInvitations }
                        if let chosen = request.contact.profileName { object["profileName"] = chosen }
                        return object
                    }]
                    if !blocked { output["removedForRoom"] = removed }
                    try printJSON(output)
                    return
                }
                if requests.isEmpty { print(blocked ? "Nobody is blocked." : "No message requests.") }
                for request in requests {
                    let count = request.messageCount == 1 ? "1 message" : "\(request.messageCount) messages"
                    print("\(Presentation.style.bold(Presentation.peer(request.contact.name)))  \(count)  \(Presentation.style.dim(Presentation.time(request.lastMessage?.createdAt ?? request.contact.createdAt)))")
                    print("  \(request.contact.address)")
                    if let chosen = request.contact.profileName {
                        print("  calls themselves \"\(Presentation.oneLine(chosen, length: 64))\" (their claim: compare safety numbers to know who it is)")
                    }
                    for group in request.groupInvitations {
                        print("  \(Presentation.peer(request.contact.name)) invites you to the group \"\(Presentation.oneLine(group, length: 64))\" (you join it when you accept)")
                    }
                    if let body = request.lastMessage?.text { print("  \(Presentation.oneLine(body))") }
                }
                if removed > 0 {
                    print(Presentation.style.dim("\(removed) older request(s) were removed to make room: at most \(HushAccount.maxMessageRequests) wait at once."))
                }
                if !requests.isEmpty && !blocked {
                    print(Presentation.style.dim("Accept with `hush requests accept NAME [--name NEW]` (compare safety numbers with `hush verify NAME`), or `hush requests block NAME`."))
                }
            }
        }
    }

    struct Accept: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "accept",
            abstract: "Accept a message request (or unblock): they get the receipts they are owed and can reach you as a contact.")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The request's name, from `hush requests`.") var name: String
        @Option(name: .customLong("name"), help: "Name the contact (1 to 64 characters) instead of keeping the unknown-… name.") var rename: String?

        func validate() throws {
            if let rename { try NameRule.checkContact(rename) }
        }

        func run() async throws {
            try await reportingErrors {
                let account = try await global.openAccount()
                let contact = try await account.acceptRequest(from: RequestsCommand.request(name, in: account).id, renameTo: rename)
                if global.json {
                    try printJSON(["name": contact.name, "address": contact.address, "standing": contact.standing.rawValue])
                } else {
                    print("Accepted \(contact.name); they now get receipts and can reach you as a contact.")
                    print("Compare safety numbers with `hush verify \(contact.name)` to rule out a relay in the middle.")
                }
            }
        }
    }

    struct Block: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "block",
            abstract: "Block a message request or a contact: their messages are dropped unread from now on.")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The request's or contact's name.") var name: String

        func run() async throws {
            try await reportingErrors {
                let account = try await global.openAccount()
                try await account.block(Names(account: account).contact(name).id)
                if global.json {
                    try printJSON(["name": name, "standing": "blocked"])
                } else {
                    print("Blocked \(name): their messages are dropped unread; nothing is sent to them. `hush requests accept \(name)` unblocks.")
                }
            }
        }
    }

    /// The contact behind a request (or a blocked contact, whom accepting unblocks).
    static func request(_ name: String, in account: HushAccount) async throws -> Contact {
        guard let contact = try await account.contacts().first(where: { $0.name == name }), contact.standing != .accepted else {
            throw CommandError(.contactProblem, "no message request from '\(name)': `hush requests` lists them")
        }
        return contact
    }
}
