import HushKit

/// The command line's name grammar: contacts and groups are addressed by the
/// names the user gave them (`bob`, `team`), and `contact:NAME` or
/// `group:NAME` when a contact and a group share one. HushKit takes ids;
/// this turns what was typed into them, with the error a person can act on.
struct Names {
    let account: HushAccount

    /// What a name on the command line stands for.
    enum Target {
        case contact(Contact)
        case group(Group)

        /// The name as the user gave it to the contact or group.
        var name: String {
            switch self {
            case let .contact(contact): return contact.name
            case let .group(group): return group.name
            }
        }
    }

    /// A contact or a group; a bare name means the group when only a group has it.
    func target(_ typed: String) async throws -> Target {
        if typed.hasPrefix("group:") { return .group(try await group(String(typed.dropFirst(6)))) }
        if typed.hasPrefix("contact:") { return .contact(try await contact(String(typed.dropFirst(8)))) }
        let group = try await account.groups().first { $0.name == typed }
        let contact = try await account.contacts().first { $0.name == typed }
        switch (contact, group) {
        case let (contact?, nil): return .contact(contact)
        case let (nil, group?): return .group(group)
        case (_?, _?): throw CommandError(.contactProblem, "'\(typed)' is both a contact and a group: write contact:\(typed) or group:\(typed)")
        case (nil, nil): throw Self.unknownContact(typed)
        }
    }

    /// The room a name stands for, with what it stands for.
    func room(_ typed: String) async throws -> (room: Room, target: Target) {
        let target = try await target(typed)
        switch target {
        case let .contact(contact): return (try await account.room(with: contact.id), target)
        case let .group(group): return (try await account.room(group.id), target)
        }
    }

    /// A contact of any standing (accepted, a request, blocked) by name.
    /// `contact:NAME` is accepted too, as `target` accepts it (the error for a
    /// name both a contact and a group have tells the user to write it).
    func contact(_ name: String) async throws -> Contact {
        let contacts = try await account.contacts()
        if let contact = contacts.first(where: { $0.name == name }) { return contact }
        if name.hasPrefix("contact:"), let contact = contacts.first(where: { $0.name == name.dropFirst(8) }) { return contact }
        throw Self.unknownContact(name)
    }

    func group(_ name: String) async throws -> Group {
        guard let group = try await account.groups().first(where: { $0.name == name }) else {
            throw HushError(.notFound, reason: "no group named '\(name)'", subject: .group(name))
        }
        return group
    }

    static func unknownContact(_ name: String) -> HushError {
        HushError(.notFound, reason: "no contact named '\(name)'", subject: .contact(name))
    }
}
