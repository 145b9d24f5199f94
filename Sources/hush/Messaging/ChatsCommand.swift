import ArgumentParser
import Foundation
import HushKit
import HushTerminal

struct ChatsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "chats",
        abstract: "The conversation list: latest first, with the last message, its time and unread count.",
        discussion: """
            Examples:
              hush chats
              hush chats --json
            """)

    @OptionGroup var global: GlobalOptions

    func run() async throws {
        try await reportingErrors {
            let account = try await global.openAccount()
            let conversations = try await account.conversations()
            let requests = try await account.messageRequests().count
            // A group's last message names the member who wrote it.
            var writers: [ConversationID: String] = [:]
            for conversation in conversations where conversation.isGroup {
                if let last = conversation.lastMessage, last.direction == .incoming {
                    writers[conversation.id] = try await account.name(of: last.senderAddress)
                }
            }
            if global.json {
                try printJSON(["conversations": conversations.map { conversation -> [String: Any] in
                    var object: [String: Any] = ["contact": conversation.title, "unread": conversation.unreadCount,
                                                 "summary": Presentation.summary(conversation)]
                    if let at = conversation.lastActivityAt { object["lastActivityAt"] = at }
                    if let last = conversation.lastMessage { object["lastMessage"] = Presentation.json(last, contact: conversation.title) }
                    return object
                }])
                return
            }
            if conversations.isEmpty { print("No conversations yet.") }
            if requests > 0 { print(Presentation.style.bold("\(requests) message request(s): `hush requests`")) }
            // The list is written whole, with one print: 4,000 lines on
            // 2,000 conversations, each print its own pass through the
            // daemon's output (CoalescedOutput) when it runs there.
            var list = ""
            list.reserveCapacity(conversations.count * 100)
            for conversation in conversations {
                let unread = conversation.unreadCount > 0 ? Presentation.style.bold(" (\(conversation.unreadCount) unread)") : ""
                let from = conversation.lastMessage.map { $0.direction == .outgoing ? "you: " : writers[conversation.id].map { "\(Presentation.peer($0)): " } ?? "" } ?? ""
                list += "\(Presentation.style.bold(Presentation.peer(conversation.title)))\(unread)  \(Presentation.style.dim(Presentation.time(conversation.lastActivityAt)))\n"
                list += "  \(from)\(UntrustedText.sanitized(Presentation.summary(conversation), keepingLineBreaks: false))\n"
            }
            if !list.isEmpty { print(list, terminator: "") }
        }
    }
}

struct HistoryCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "history",
        abstract: "A page of a conversation, with status marks; marks incoming messages read and sends read receipts.",
        discussion: """
            Pages are keyset-based: pass the id in brackets of the oldest line shown as --before to see \
            the page before it.

            Marks: … pending, ✓ sent (the relay has it), ✓✓ delivered, ✓✓ read, ✗ failed.

            A reply shows the message it quotes above it (↳), and the reactions to a message \
            follow it on a line of their own. `hush reply`, `hush react`, `hush edit` and `hush delete` \
            take the ids in brackets. An edited message shows its current text marked "(edited)"; \
            --edits ID lists every version of message ID (the original first) with the time its author \
            wrote it. A deleted message shows as (deleted); one under a disappearing timer shows when it \
            disappears once read; an expired one is gone. --json carries "deleted", "expiresAfter" \
            (seconds) and "expiresAt" (ms since 1970, once its timer runs).

            Examples:
              hush history bob
              hush history bob --before 120 --limit 20
              hush history bob --edits 42
            """)

    @OptionGroup var global: GlobalOptions
    @Argument(help: "The contact's or group's name (contact:NAME or group:NAME when both exist).") var name: String
    // `.unconditional`: a negative number is the option's value, refused by `validate` with the
    // range, not read as an unknown option ("Missing value for '--limit'").
    @Option(parsing: .unconditional, help: "Show messages before this message id.") var before: Int64?
    @Option(parsing: .unconditional, help: "Show messages after this message id.") var after: Int64?
    @Option(parsing: .unconditional, help: "How many messages (1 to 500).") var limit = 50
    @Flag(help: "Do not mark messages read or send read receipts.") var noReceipts = false
    @Option(help: "Show every version of this edited message instead of a page.") var edits: Int64?

    func validate() throws {
        guard (1...500).contains(limit) else { throw ValidationError("--limit must be between 1 and 500, not \(limit)") }
        for (option, id) in [("--before", before), ("--after", after), ("--edits", edits)] {
            if let id, id < 1 { throw ValidationError("\(option) takes a message id (1 or more, the number in brackets), not \(id)") }
        }
        if before != nil && after != nil { throw ValidationError("use --before or --after, not both") }
        if edits != nil && (before != nil || after != nil) { throw ValidationError("--edits shows one message: leave out --before and --after") }
    }

    func run() async throws {
        try await reportingErrors {
            let account = try await global.openAccount()
            let (room, target) = try await Names(account: account).room(name)
            // The name as given to the contact or group, without a `contact:` or `group:` typed to choose.
            let shown = target.name
            if let edits { return try await showVersions(of: MessageID(rawValue: edits), in: room) }
            let page: [Message]
            if let after {
                page = try await room.messages(after: MessageID(rawValue: after), limit: limit)
            } else {
                page = try await room.history(before: before.map(MessageID.init(rawValue:)), limit: limit).messages
            }
            let resent = try await room.resentMessages()
            // In a group, each incoming line names its member and each of ours counts the members it reached.
            var group: String?
            if case let .group(found) = target { group = found.name }
            var members: [String: String] = [:]
            var receipts: [MessageID: GroupReceipts] = [:]
            if group != nil {
                for message in page {
                    if message.direction == .incoming, members[message.senderAddress] == nil {
                        members[message.senderAddress] = try await account.name(of: message.senderAddress)
                    }
                    if message.direction == .outgoing { receipts[message.id] = try await room.receipts(of: message.id) }
                }
            }
            if global.json {
                var output: [String: Any] = [:]
                if let restored = account.restoredFromBackupAt {
                    output["restoredFromBackup"] = ISO8601DateFormatter().string(from: restored)
                    // On a linked device that moment is the link's: its history came from the device that linked it.
                    if account.isLinkedDevice { output["historyCopiedAtLink"] = true }
                }
                output["messages"] = page.map { message in
                    Self.json(message, contact: members[message.senderAddress] ?? shown, resent: resent.contains(message.clientMessageID),
                              group: group, receipts: receipts[message.id])
                }
                try printJSON(output)
            } else {
                // Said in every conversation: sessions (and anything in flight) started over at the restore.
                if let restored = account.restoredFromBackupAt {
                    let date = ISO8601DateFormatter().string(from: restored)
                    if !account.isLinkedDevice {
                        print(Presentation.style.dim("(restored from a backup of \(date))"))
                    } else if let oldest = page.first, oldest.createdAt <= Int64(restored.timeIntervalSince1970 * 1000) {
                        // A linked device's history came in the link's archive: said as what it is, where there is some.
                        print(Presentation.style.dim("(history up to \(date) copied from the device that linked this one)"))
                    }
                }
                if page.isEmpty { print("No messages.") }
                let byID = Dictionary(page.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
                // Reactors and quoted senders by name: contacts by theirs, anyone else by address.
                var names = members
                for address in Set(page.flatMap { $0.reactions.map(\.reactorAddress) }) where names[address] == nil {
                    names[address] = try await account.name(of: address)
                }
                for message in page {
                    // Under the reply, indented as its reactions: above it, it read as the line before's.
                    var quote: String?
                    if let quoted = message.replyTo {
                        var original = quoted.message.flatMap { byID[$0] }
                        if original == nil, let id = quoted.message { original = try await account.message(id) }
                        let author = original.map { $0.direction == .outgoing ? "you" : names[$0.senderAddress] ?? shown }
                        quote = Presentation.quote(original, name: author)
                    }
                    var note = resent.contains(message.clientMessageID) ? Presentation.style.dim("  (resent: \(shown) could not decrypt it)") : ""
                    if let counts = receipts[message.id], counts.members > 0 {
                        note += Presentation.style.dim("  (delivered to \(counts.delivered) of \(counts.members), read by \(counts.read) of \(counts.members))")
                    }
                    print(Presentation.line(message, contact: members[message.senderAddress] ?? shown) + note)
                    if let quote { print(quote) }
                    if !message.reactions.isEmpty { print("      " + Presentation.reactions(message.reactions, names: names)) }
                }
            }
            if !noReceipts { try await room.markRead() }
        }
    }
}

extension HistoryCommand {
    /// One message as `hush history --json` prints it (and `hush export`
    /// writes it, with a few fields more): `Presentation.json`, whether it
    /// was resent, and in a group the group's name and its receipts.
    static func json(_ message: Message, contact: String, resent: Bool, group: String?, receipts: GroupReceipts?) -> [String: Any] {
        var object = Presentation.json(message, contact: contact)
        if resent { object["resent"] = true }
        if let group {
            object["group"] = group
            if let receipts {
                object["members"] = receipts.members
                object["deliveredTo"] = receipts.delivered
                object["readBy"] = receipts.read
            }
        }
        return object
    }

    /// `--edits ID`: the versions of one message, oldest first, each with
    /// the time its author wrote it; the last is the text history shows.
    func showVersions(of id: MessageID, in room: Room) async throws {
        let versions = try await room.editHistory(of: id)
        if global.json {
            try printJSON(["id": id.rawValue, "versions": versions.map { version in
                ["text": version.text, "writtenAt": version.writtenAt, "original": version.isOriginal] as [String: Any]
            }])
            return
        }
        guard !versions.isEmpty else { return print("[\(id)] was never edited.") }
        for (index, version) in versions.enumerated() {
            let label = version.isOriginal ? "original" : "edit \(index)"
            print("[\(id)] \(Presentation.style.dim(Presentation.time(version.writtenAt)))  \(Presentation.style.dim(label)): \(UntrustedText.sanitized(version.text))")
        }
    }
}

struct SearchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "search",
        abstract: "Full-text search over your local history.",
        discussion: """
            Every word must occur. The search runs on the encrypted local database only.
            Words are matched whole, without regard to case or accents; a word of symbols
            alone (an emoji) is matched exactly as typed.

            Examples:
              hush search dinner friday
              hush search 🎉
            """)

    @OptionGroup var global: GlobalOptions
    @Argument(parsing: .remaining, help: "Words to search for.") var words: [String]
    @Option(parsing: .unconditional, help: "How many hits (1 to 200).") var limit = 20

    func validate() throws {
        guard !words.joined().isEmpty else { throw ValidationError("give at least one word to search for") }
        guard (1...200).contains(limit) else { throw ValidationError("--limit must be between 1 and 200, not \(limit)") }
    }

    func run() async throws {
        try await reportingErrors {
            let account = try await global.openAccount()
            let hits = try await account.search(words.joined(separator: " "), limit: limit)
            var titles: [ConversationID: String] = [:]
            var rows: [[String: Any]] = []
            for hit in hits {
                let conversation = hit.message.conversation
                if titles[conversation] == nil {
                    // A group's hits say group:NAME, as a name typed on the command line would.
                    let summary = try? await account.room(conversation).summary()
                    titles[conversation] = summary.map { $0.isGroup ? "group:" + $0.title : $0.title } ?? "?"
                }
                let contact = titles[conversation] ?? "?"
                if global.json {
                    var object = Presentation.json(hit.message, contact: contact)
                    object["snippet"] = hit.snippet
                    rows.append(object)
                } else {
                    print("\(Presentation.style.bold(Presentation.peer(contact))) [\(hit.message.id)] \(Presentation.style.dim(Presentation.time(hit.message.createdAt)))  \(UntrustedText.sanitized(hit.snippet, keepingLineBreaks: false))")
                }
            }
            if global.json { try printJSON(["hits": rows]) } else if hits.isEmpty { print("No matches.") }
        }
    }
}

struct OutboxCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "outbox",
        abstract: "Messages not yet accepted by the relay: pending (with the next retry) and failed, and files still uploading or failed.",
        discussion: """
            Examples:
              hush outbox
              hush retry            # post every failed or pending message now
            """)

    @OptionGroup var global: GlobalOptions

    func run() async throws {
        try await reportingErrors {
            let account = try await global.openAccount()
            let items = try await account.queuedMessages()
            // A file still uploading, or whose upload failed, has no request yet (its pointer is sealed once the
            // relay holds the blob): listed too, or a failed file left "The outbox is empty." (a walkthrough).
            let files = try await account.attachments().filter { $0.direction == .outgoing && ($0.state == .uploading || $0.state == .failed) }
            if global.json {
                try printJSON(["outbox": items.map { item -> [String: Any] in
                    var object: [String: Any] = ["requestId": item.requestID, "status": item.state.rawValue,
                                                 "failCount": item.failedAttempts, "nextAttemptAt": item.nextAttemptAt,
                                                 "bytes": item.size]
                    if let error = item.lastError { object["lastError"] = error }
                    if let id = item.message { object["messageId"] = id.rawValue }
                    return object
                }, "files": files.map { file -> [String: Any] in
                    var object: [String: Any] = ["attachmentId": file.id.rawValue, "messageId": file.message.rawValue, "fileName": file.fileName,
                                                 "status": file.state == .failed ? "failed" : "uploading", "bytes": file.size,
                                                 "uploaded": file.transferred]
                    if let error = file.lastError { object["lastError"] = error }
                    return object
                }])
                return
            }
            if items.isEmpty && files.isEmpty { print("The outbox is empty.") }
            // Which conversation each request is for, and the message it carries ([id], as `hush send` and
            // `hush history` print it): a walkthrough could not tell the requests apart.
            let titles = items.isEmpty ? [:] : Dictionary(try await account.conversations().map { ($0.id, $0.title) }, uniquingKeysWith: { first, _ in first })
            for item in items {
                let when = item.state == .pending ? "next try \(Presentation.time(item.nextAttemptAt))" : "gave up"
                let carried = item.message.map { "[\($0.rawValue)] " } ?? ""
                let to = titles[item.conversation].map { "to \(Presentation.peer($0))  " } ?? ""
                print("\(item.requestID.prefix(12))  \(carried)\(to)\(item.state.rawValue)  attempts \(item.failedAttempts)  \(when)  \(Presentation.peer(item.lastError ?? ""))")
            }
            for file in files {
                let state = file.state == .failed ? "failed (`hush retry` uploads it again)" : "uploading \(ProgressDisplay.bytes(file.transferred)) of \(ProgressDisplay.bytes(file.transferSize))"
                print("file [\(file.message.rawValue)] \(Presentation.peer(file.fileName))  \(state)  \(Presentation.peer(file.lastError ?? ""))")
            }
        }
    }
}

struct RetryCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "retry",
        abstract: "Post failed and pending messages now (all, or the one whose request id starts with ID).",
        discussion: """
            A text or a file whose upload finished is sealed again on the current session,
            under a new request id; one still waiting afterwards is printed with its new id
            (`--json`: "resealed"), one the relay took counts as sent. Each message retried gets
            a new round of attempts: one the relay still cannot take stays pending and is tried
            again with backoff (`hush sync`, `hush chat`, `hush daemon`) before it fails again.

            Examples:
              hush retry
              hush retry 3fa9c1
            """)

    @OptionGroup var global: GlobalOptions
    @Argument(help: "A request id (or its start) from `hush outbox`.") var id: String?

    func run() async throws {
        try await reportingErrors {
            let account = try await global.openAccount()
            // A retried message may be sealed again under a new request id: the id the user
            // gave then names nothing in `hush outbox`, so the new one is told.
            let chosen = try await account.queuedMessages().filter { id == nil || $0.requestID.hasPrefix(id!) }
            let report = try await account.retryQueued(requestID: id)
            let waiting = try await account.queuedMessages()
            let renamed: [(from: String, to: String)] = chosen.compactMap { old in
                guard let message = old.message, let now = waiting.first(where: { $0.message == message }), now.requestID != old.requestID
                else { return nil }
                return (old.requestID, now.requestID)
            }
            if global.json {
                var object: [String: Any] = ["sent": report.sent, "retrying": report.retrying, "failed": report.failed,
                                             "resealed": renamed.map { ["from": $0.from, "to": $0.to] }]
                if let next = report.nextAttemptAt { object["nextAttemptAt"] = next }
                try printJSON(object)
            } else {
                print("Sent \(report.sent), still waiting \(report.retrying), failed \(report.failed)")
                for change in renamed {
                    print("Request \(change.from.prefix(12)) was sealed again and waits as \(change.to.prefix(12)) (`hush outbox`)")
                }
            }
            if report.failed > 0 { throw ExitCode(.relayUnavailable) }
        }
    }
}
