import ArgumentParser
import HushKit

struct GroupCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "group",
        abstract: "Create group conversations and change who is in them.",
        discussion: """
            A group is end-to-end encrypted like a direct chat: each message is encrypted once with the \
            sender's own key for the group (a sender key, which every member holds and only the sender \
            can sign with) and deposited in every member's mailbox in one request. Membership lives \
            with the members: an admin's change goes to every member over their direct sessions, and \
            every change rotates every member's key, so a removed member reads nothing sent afterwards.

            A large group (`hush group create NAME MEMBER... --large`, up to 1000 members) sends no keys \
            between members: each derives every key from the admin's change, so creating it or adding \
            or removing a member costs one envelope per member. Its messages are signed with each \
            author's identity key (anyone shown one can tell who wrote it), carry no receipts, and are \
            texts, replies and files only.

            Send, read and search with the group's name as with a contact's: `hush send team "hi"`, \
            `hush history team`, `hush chat team`. When a contact has the same name, write group:NAME.

            Examples:
              hush group create team bob carol
              hush group create town bob carol dave --large
              hush group add team dave
              hush group remove team dave
              hush group info team
            """,
        subcommands: [Create.self, Add.self, Remove.self, Promote.self, Rename.self, Leave.self, List.self, Info.self]
    )

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "create", abstract: "Create a group with you as its admin and these contacts as members.")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The group's name (1 to 64 bytes).") var name: String
        @Argument(help: "Contacts to invite (accepted contacts).") var members: [String]
        @Flag(help: "A large group, up to 1000 members: one envelope per member to create, add or remove, but messages are attributable to their author beyond the group and carry no receipts.") var large = false

        func validate() throws {
            try NameRule.checkGroup(name)
            guard !members.isEmpty else { throw ValidationError("name at least one contact to create a group with") }
        }

        func run() async throws {
            // A large group's messages can be shown to anyone as their author's (§18.4): said when it is made.
            let notice = large ? "\nIts messages are signed with each author's identity key: anyone a member shows one to can tell who wrote it. No receipts." : ""
            try await GroupCommand.change(global, headline: { "Created \(Presentation.peer($0.name)) with \($0.members.count - 1) member(s).\(notice)" }) {
                large ? try await $0.account.createLargeGroup(name: name, members: $0.contactIDs(members))
                    : try await $0.account.createGroup(name: name, members: $0.contactIDs(members))
            }
        }
    }

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "add", abstract: "Add contacts to a group you administer (they read only what is sent from then on).")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The group.") var name: String
        @Argument(help: "Contacts to add.") var members: [String]

        func validate() throws {
            guard !members.isEmpty else { throw ValidationError("name at least one contact to add") }
        }

        func run() async throws {
            try await GroupCommand.change(global, headline: { "Added \(members.joined(separator: ", ")) to \(Presentation.peer($0.name)) (epoch \($0.epoch))." }) {
                try await $0.groupRoom(name).addMembers($0.contactIDs(members))
            }
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "remove", abstract: "Remove a member from a group you administer; every member's key rotates.")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The group.") var name: String
        @Argument(help: "The member.") var member: String

        func run() async throws {
            try await GroupCommand.change(global, headline: { "Removed \(member) from \(Presentation.peer($0.name)) (epoch \($0.epoch))." }) {
                try await $0.groupRoom(name).removeMember($0.member(member, of: name))
            }
        }
    }

    struct Promote: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "promote", abstract: "Make a member an admin of a group you administer.")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The group.") var name: String
        @Argument(help: "The member.") var member: String

        func run() async throws {
            try await GroupCommand.change(global, headline: { "\(member) is now an admin of \(Presentation.peer($0.name))." }) {
                try await $0.groupRoom(name).makeAdmin($0.member(member, of: name))
            }
        }
    }

    struct Rename: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "rename", abstract: "Rename a group you administer, for every member.")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The group.") var name: String
        @Argument(help: "Its new name.") var newName: String

        func validate() throws {
            try NameRule.checkGroup(newName)
        }

        func run() async throws {
            try await GroupCommand.change(global, headline: { "Renamed \(name) to \($0.name)." }) {
                try await $0.groupRoom(name).rename(to: newName)
            }
        }
    }

    struct Leave: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "leave", abstract: "Leave a group; its history stays on this device.")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The group.") var name: String

        func run() async throws {
            try await reportingErrors {
                let names = Names(account: try await global.openAccount())
                try await names.groupRoom(name).leave()
                if global.json { try printJSON(["left": name]) } else { print("You left \(name); its history stays readable.") }
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List your groups.")
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            try await reportingErrors {
                let groups = try await global.openAccount().groups()
                if global.json { return try printJSON(["groups": groups.map(GroupCommand.json)]) }
                if groups.isEmpty { print("No groups yet: `hush group create NAME MEMBER…`.") }
                for group in groups {
                    let standing = group.standing == .member ? "" : "  (\(group.standing == .left ? "you left" : "you were removed"))"
                    print("\(Presentation.peer(group.name))  \(group.members.count) members, epoch \(group.epoch)\(group.youAreAdmin ? ", you are admin" : "")\(standing)")
                }
            }
        }
    }

    struct Info: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "info", abstract: "Show a group's members, admins, who is verified, and its epoch.")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The group.") var name: String

        func run() async throws {
            try await reportingErrors {
                let group = try await Names(account: try await global.openAccount()).group(name)
                try GroupCommand.show(group, json: global.json, headline: nil)
            }
        }
    }

    /// Runs a membership change and shows the group as it now is.
    static func change(_ global: GlobalOptions, headline: (Group) -> String,
                       _ body: (Names) async throws -> Group) async throws {
        try await reportingErrors {
            let group = try await body(Names(account: try await global.openAccount()))
            try show(group, json: global.json, headline: headline(group))
        }
    }

    static func show(_ group: Group, json: Bool, headline: String?) throws {
        if json { return try printJSON(Self.json(group)) }
        if let headline { print(headline) }
        print("\(Presentation.peer(group.name)): \(group.members.count) members, epoch \(group.epoch)" +
              (group.standing == .member ? "" : group.standing == .left ? " (you left)" : " (you were removed)"))
        for member in group.members {
            var notes: [String] = []
            if member.isAdmin { notes.append("admin") }
            switch member.verification {
            case .verified?: notes.append(Presentation.style.good("verified"))
            case .unverified?: notes.append("unverified")
            case .changed?: notes.append(Presentation.style.bad("IDENTITY CHANGED: sending to the group is blocked"))
            case nil: break
            }
            if !member.isYou, !member.hasKey {
                notes.append(member.hasAnswered ? "key not received yet"
                    : "nothing received from them yet: until they accept you, the group waits in their `hush requests`")
            }
            print("  \(Presentation.peer(member.name))  \(Presentation.peer(member.address))" + (notes.isEmpty ? "" : "  " + notes.joined(separator: ", ")))
        }
    }

    static func json(_ group: Group) -> [String: Any] {
        ["name": group.name, "epoch": Int(group.epoch), "standing": group.standing.rawValue,
         "members": group.members.map { member -> [String: Any] in
             ["name": member.name, "address": member.address, "admin": member.isAdmin, "you": member.isYou,
              "verification": member.verification?.rawValue ?? "you", "hasKey": member.hasKey, "answered": member.isYou || member.hasAnswered]
         }]
    }
}

/// Group members and groups by the names typed on the command line.
extension Names {
    /// The room of the group `name` (group:NAME works too).
    func groupRoom(_ name: String) async throws -> Room {
        try await account.room(group(name.hasPrefix("group:") ? String(name.dropFirst(6)) : name).id)
    }

    func contactIDs(_ names: [String]) async throws -> [ContactID] {
        var ids: [ContactID] = []
        for name in names { ids.append(try await contact(name).id) }
        return ids
    }

    /// A member of the group `group`, by the name it lists them under.
    func member(_ name: String, of group: String) async throws -> ContactID {
        let found = try await self.group(group.hasPrefix("group:") ? String(group.dropFirst(6)) : group)
        if let member = found.members.first(where: { $0.name == name }) {
            if member.isYou { throw CommandError(.failure, "to leave '\(found.name)', use `hush group leave \(found.name)`") }
            if let contact = member.contact { return contact }
            throw CommandError(.failure, "\(name) is not one of your contacts: add them as a contact first (`hush contact add NAME ADDRESS`)")
        }
        return try await contact(name).id
    }
}
