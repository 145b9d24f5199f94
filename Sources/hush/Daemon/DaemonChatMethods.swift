import Foundation
import HushDaemon
import HushKit

/// The daemon's methods for one conversation: what `hush chat` does through
/// a running daemon (`DaemonChatAccount`), and what a bot may call too. Each
/// runs `LocalChatAccount`, the chat's in-process side, on the daemon's
/// account: a chat through the daemon does what one in its own process does.
/// `to` names the conversation as `hush chat` takes it (bob, contact:bob, group:team).
enum DaemonChatMethods {
    static func register(in methods: inout RPCMethods, account: HushAccount) {
        let to = RPCMethods.Parameter("to", required: true, "A contact's or group's name, as `hush chat` takes it.", schema: .stringSchema)
        let id = RPCMethods.Parameter("id", required: true, "The message's id (the number `hush history` shows in brackets).", schema: .integerSchema)
        let messageSchema = JSONValue.anyObjectSchema
        let messagesSchema = JSONValue.objectSchema(["messages": .object(["type": .string("array"), "items": messageSchema])])
        @Sendable func chat(_ params: JSONValue) async throws -> LocalChatAccount {
            try await LocalChatAccount.open(account, name: try params.requiredString("to"), ownsLiveConnection: false)
        }
        @Sendable func messageID(_ params: JSONValue) throws -> MessageID {
            guard let id = try params.optionalInteger("id", in: 1...Int64.max) else { throw RPCError.invalidParams("'id' is required") }
            return MessageID(rawValue: id)
        }
        @Sendable func sent(_ sent: ChatSent, _ params: JSONValue) throws -> JSONValue {
            var object = ChatWire.json(sent.message, contact: try params.requiredString("to"))
            object["refusedByRelay"] = sent.refusedByRelay
            return try JSONValue(jsonObject: object)
        }
        /// Messages with the names to show for their senders.
        @Sendable func listed(_ messages: [Message], _ chat: LocalChatAccount, _ params: JSONValue) async throws -> JSONValue {
            let names = try await chat.senderNames(messages), name = try params.requiredString("to")
            return try JSONValue(jsonObject: ["messages": messages.map { ChatWire.json($0, contact: name, senderName: names[$0.senderAddress]) }])
        }

        methods.register("conversations.open", summary: """
            The conversation with a contact or group: its id, the contact's id (null for a group), the verification state \
            (verified, unverified, changed; a group's is its least trusted member's) and, for a group, its name and members' names by address.
            """, params: [to], result: .objectSchema(["conversationId": .integerSchema, "contactId": .integerSchema,
                                                      "verification": .stringSchema, "group": .anyObjectSchema])) { params, _ in
            let chat = try await chat(params)
            let group = try await chat.group()
            return try JSONValue(jsonObject: [
                "conversationId": chat.conversation.rawValue, "contactId": chat.contactID.map { $0.rawValue as Any } ?? NSNull(),
                "verification": try await chat.verification().rawValue,
                "group": group.map { ["name": $0.name, "members": $0.members] as Any } ?? NSNull(),
            ])
        }
        methods.register("conversations.markRead", summary: "Marks the conversation read (read receipts go to the contact).",
                         params: [to], result: .objectSchema(["read": .booleanSchema])) { params, _ in
            try await chat(params).markRead()
            return .object(["read": .bool(true)])
        }
        methods.register("conversations.setDisappearing", summary: """
            Sets the conversation's disappearing timer (seconds; 0 turns it off). result: the timer change as a message.
            """, params: [to, .init("seconds", required: true, "The timer: 3600, 86400, 604800, or 0 for off.", schema: .integerSchema)],
            result: messageSchema) { params, _ in
            guard let seconds = try params.optionalInteger("seconds", in: 0...Int64(UInt32.max)) else { throw RPCError.invalidParams("'seconds' is required") }
            let message = try await chat(params).setDisappearingTimer(UInt32(seconds))
            return try JSONValue(jsonObject: ChatWire.json(message, contact: try params.requiredString("to")))
        }
        methods.register("typing.set", summary: """
            A typing indicator or heartbeat (active false) to a contact, over the daemon's live connection to the relay, never stored.
            """, params: [to, .init("active", required: true, "Whether the user is typing.", schema: .booleanSchema)],
            result: .objectSchema(["sent": .booleanSchema])) { params, _ in
            guard let active = try params.optionalBool("active") else { throw RPCError.invalidParams("'active' is required") }
            try await chat(params).setTyping(active)
            return .object(["sent": .bool(true)])
        }
        methods.register("messages.history", summary: """
            The conversation's last messages, oldest first, as `hush history --json` prints them, with conversationId, sender and \
            (incoming) senderName.
            """, params: [to, .init("limit", "How many (1 to 10,000; 50 when left out).", schema: .integerSchema)],
            result: messagesSchema) { params, _ in
            let chat = try await chat(params)
            let limit = try params.optionalInteger("limit", in: 1...10_000) ?? 50
            return try await listed(try await chat.lastMessages(Int(limit)), chat, params)
        }
        methods.register("messages.search", summary: "The conversation's messages matching `text` (full text, as `hush search`), oldest first.",
                         params: [to, .init("text", required: true, "What to look for.", schema: .stringSchema),
                                  .init("limit", "At most this many (1 to 1,000; 20 when left out).", schema: .integerSchema)],
                         result: messagesSchema) { params, _ in
            let chat = try await chat(params)
            let limit = try params.optionalInteger("limit", in: 1...1_000) ?? 20
            return try await listed(try await chat.search(try params.requiredString("text"), limit: Int(limit)), chat, params)
        }
        methods.register("messages.sendFile", summary: """
            Sends the file at `path` (absolute; read by the daemon) to the conversation. result: its message, with refusedByRelay.
            """, params: [to, .init("path", required: true, "The file's absolute path.", schema: .stringSchema)], result: messageSchema) { params, _ in
            let path = try params.requiredString("path")
            guard path.hasPrefix("/") else { throw RPCError.invalidParams("'path' must be absolute: the daemon's working directory is not the caller's") }
            return try sent(try await chat(params).sendFile(path), params)
        }
        methods.register("messages.reply", summary: "Sends `text` as a reply quoting message `id`. result: the reply, with refusedByRelay.",
                         params: [to, id, .init("text", required: true, "The reply.", schema: .stringSchema)], result: messageSchema) { params, _ in
            try sent(try await chat(params).reply(to: try messageID(params), text: try params.requiredString("text")), params)
        }
        methods.register("messages.react", summary: "Sets the account's reaction to message `id` to `emoji`, or takes it away (emoji left out or null).",
                         params: [to, id, .init("emoji", "One emoji.", schema: .stringSchema)],
                         result: .objectSchema(["reacted": .booleanSchema])) { params, _ in
            let emoji = try params.optionalString("emoji")
            try await chat(params).react(to: try messageID(params), with: emoji)
            return .object(["reacted": .bool(emoji != nil)])
        }
        methods.register("messages.edit", summary: "Replaces the text of the account's message `id`. result: the message as it now stands.",
                         params: [to, id, .init("text", required: true, "The new text.", schema: .stringSchema)], result: messageSchema) { params, _ in
            let message = try await chat(params).edit(try messageID(params), text: try params.requiredString("text"))
            return try JSONValue(jsonObject: ChatWire.json(message, contact: try params.requiredString("to")))
        }
        methods.register("messages.delete", summary: "Deletes message `id` here, or (forEveryone) the account's message for everyone.",
                         params: [to, id, .init("forEveryone", "Delete it for everyone (only the account's own messages).", schema: .booleanSchema)],
                         result: .objectSchema(["deleted": .booleanSchema])) { params, _ in
            try await chat(params).delete(try messageID(params), forEveryone: try params.optionalBool("forEveryone") ?? false)
            return .object(["deleted": .bool(true)])
        }
        methods.register("messages.fetch", summary: """
            Downloads and checks the file of received message `id` into `folder` (absolute; created 0700), under its sender's file \
            name made safe, never replacing a file. `fetch.progress` notifications {done, total} come before the result.
            """, params: [to, id, .init("folder", required: true, "The folder's absolute path.", schema: .stringSchema)],
            result: .objectSchema(["fileName": .stringSchema, "size": .integerSchema, "path": .stringSchema])) { params, call in
            let folder = try params.requiredString("folder")
            guard folder.hasPrefix("/") else { throw RPCError.invalidParams("'folder' must be absolute") }
            let chat = try await chat(params)
            // Every `fetch.progress` goes before the answer, an error's too.
            let fetched = try await ProgressForwarding.run(forward: { (step: (done: Int64, total: Int64)) in
                try? await call.notify("fetch.progress", .object(["done": .number(Double(step.done)), "total": .number(Double(step.total))]))
            }) { report in
                try await chat.fetch(try messageID(params), into: folder) { report(($0, $1)) }
            }
            return .object(["fileName": .string(fetched.fileName), "size": .number(Double(fetched.size)), "path": .string(fetched.path)])
        }
        methods.register("contacts.safetyNumber", summary: "The safety number with the contact: 60 digits in twelve groups of five.",
                         params: [to], result: .objectSchema(["groups": .object(["type": .string("array"), "items": .stringSchema])])) { params, _ in
            .object(["groups": .array(try await chat(params).safetyNumber().map(JSONValue.string))])
        }
        methods.register("contacts.verify", summary: "Compares the digits the contact read out; a match marks them verified.",
                         params: [to, .init("code", required: true, "The 60 digits (spaces allowed).", schema: .stringSchema)],
                         result: .objectSchema(["match": .booleanSchema])) { params, _ in
            .object(["match": .bool(try await chat(params).verify(code: try params.requiredString("code")))])
        }
        methods.register("outbox.flush", summary: "Tries every queued message once now. result: the ids of those the relay refused.",
                         result: .objectSchema(["refused": .object(["type": .string("array"), "items": .integerSchema])])) { _, _ in
            let refused = await account.sendQueued().refused
            return .object(["refused": .array(refused.map { .number(Double($0.rawValue)) })])
        }
    }
}
