import Foundation
import HushDaemon
import HushKit

/// The daemon's local API besides `cli.run`: what a bot or a script calls
/// without parsing a command's output. Results are the objects the matching
/// `hush … --json` command prints; errors carry the exit code that command
/// would return as their code (docs/DAEMON-API.md).
enum DaemonMethods {
    /// Everything the daemon answers. `stop` ends the daemon.
    static func make(account: HushAccount, home: String, startedAt: Date, stop: @escaping @Sendable () -> Void) -> RPCMethods {
        var methods = RPCMethods()
        DaemonCommandRunner.register(in: &methods, account: account, home: home)
        DaemonChatMethods.register(in: &methods, account: account)

        methods.register("daemon.status", summary: "The daemon's process id, account directory, address, relay, start time (ms since 1970) and API version.",
                         result: .objectSchema(["pid": .integerSchema, "home": .stringSchema, "address": .stringSchema, "relay": .stringSchema,
                                                "apiVersion": .integerSchema, "startedAt": .integerSchema])) { _, _ in
            .object([
                "pid": .number(Double(getpid())), "home": .string(home), "address": .string(account.address),
                "relay": account.relayURL.map(JSONValue.string) ?? .null, "apiVersion": .number(Double(apiVersion)),
                "startedAt": .number((startedAt.timeIntervalSince1970 * 1000).rounded()),
            ])
        }
        methods.register("daemon.stop", summary: "Stops the daemon once this answer is sent: the outbox and the events stay in the database.",
                         result: .objectSchema(["stopping": .booleanSchema])) { _, _ in
            // After the answer is written: the caller hears that the daemon stops.
            Task {
                try? await Task.sleep(for: .milliseconds(20))
                stop()
            }
            return .object(["stopping": .bool(true)])
        }
        methods.register("messages.send", summary: """
            Sends a text to a contact or group. result: the message as `hush send --json` prints it, with queuedBecause \
            when the relay does not have it yet. A request retried with the same idempotencyKey returns the first message and sends nothing.
            """, params: [
                .init("to", required: true, "A contact's or group's name, as `hush send` takes it (bob, contact:bob, group:team).", schema: .stringSchema),
                .init("text", required: true, "The message (1 to 32,768 bytes of UTF-8).", schema: .stringSchema),
                .init("idempotencyKey", "The caller's key for this send (1 to 128 bytes): a retry with the same key never sends twice.",
                      schema: .stringSchema),
            ], result: .anyObjectSchema) { params, _ in
            let name = try params.requiredString("to"), text = try params.requiredString("text")
            guard !text.isEmpty else { throw RPCError.invalidParams("'text' is empty: nothing to send") }
            let key = try params.optionalString("idempotencyKey")
            let sent = try await Names(account: account).room(name).room.sendReportingDelivery(text, idempotencyKey: key)
            var object = ChatWire.json(sent.message, contact: name)
            object["refusedByRelay"] = sent.refusedByRelay
            if let reason = sent.reason { object["queuedBecause"] = reason }
            return try JSONValue(jsonObject: object)
        }
        methods.register("events.subscribe", summary: """
            Streams events as `event` notifications (the objects `hush listen --json` prints; durable ones carry their seq) until the \
            connection closes; the result comes first, with the seq the replay starts after. With `after`, every durable event after \
            that seq is replayed from the database first, then live ones follow with no gap and no duplicate; with `subscriber` and \
            no `after`, the replay starts after what that subscriber acknowledged (events.ack). When the events after the start were \
            pruned, an `events.resume` notification says where to resume (after reading the state again) and the stream ends. \
            The first event is `connection`; in a home another home replaced, a `syncFailed` event with `homeReplaced` follows it.
            """, params: [
                .init("after", "Replay durable events after this seq (0: all that are kept).", schema: .integerSchema),
                .init("subscriber", "A name for this client (1 to 64 bytes): its acknowledged seq is where a replay starts.", schema: .stringSchema),
                .init("details", """
                    true: an event about a message carries the whole message (`message`, as messages.history gives it), typing the \
                    contactId, group and disappearingTimer the conversationId (what hush chat reads).
                    """, schema: .booleanSchema),
            ], result: .objectSchema(["subscribed": .booleanSchema, "after": .integerSchema])) { params, call in
            let subscriber = try params.optionalString("subscriber")
            let detailed = try params.optionalBool("details") ?? false
            var after = try params.optionalInteger("after", in: 0...Int64.max).map { UInt64($0) }
            if after == nil, let subscriber { after = try await account.eventCursor(subscriber: subscriber) }
            let start: UInt64
            if let after { start = after } else { start = try await account.latestEventSeq() }
            let stream = account.eventRecords(after: start)
            // Read after the stream is subscribed (HushAccount.isConnected): a change
            // before is in this value, one after comes in the stream. The value read
            // from a task that followed the events instead could lag behind the
            // stream and leave a listener told "offline" for good.
            let online = account.isConnected
            let replacement = await account.replacement()
            call.spawn {
                // The connection's state first, as a listener that started with the daemon would have seen it.
                try? await call.notify("event", .object(["event": .string("connection"), "online": .bool(online)]))
                // A home another one replaced (§19.4): the live connection said so before this subscriber came; say it again.
                if let replacement, let object = try? JSONValue(jsonObject: ListenCommand.describe(.syncFailed(replacement))) {
                    try? await call.notify("event", object)
                }
                do {
                    for try await item in stream {
                        let event: HushEvent, seq: UInt64?
                        switch item {
                        case let .record(record): (event, seq) = (record.event, record.seq)
                        case let .live(live): (event, seq) = (live, nil)
                        }
                        guard let details = await EventDetails.read(event, from: account) else {
                            // A durable event whose message is gone (deleted, expired) still counts: say its seq.
                            if let seq { try await call.notify("event", .object(["event": .string("gone"), "seq": .number(Double(seq))])) }
                            continue
                        }
                        var object = ListenCommand.describe(details)
                        if detailed { object.merge(ChatWire.eventExtras(details)) { listed, _ in listed } }
                        if let seq { object["seq"] = seq }
                        try await call.notify("event", try JSONValue(jsonObject: object))
                    }
                } catch let error as HushError where error.kind == .eventsPruned {
                    let resume = (try? await account.prunedEventSeq()) ?? 0
                    try? await call.notify("events.resume", .object([
                        "after": .number(Double(resume)), "reason": .string(error.reason),
                    ]))
                } catch {
                    // The caller went away (a write failed) or the account closed.
                }
            }
            return .object(["subscribed": .bool(true), "after": .number(Double(start))])
        }
        methods.register("events.ack", summary: """
            Records that `subscriber` processed every event through `through`; events are pruned only once every subscriber \
            acknowledged them (or past the log's bounds: 30 days, a million events). result: the subscriber's cursor.
            """, params: [
                .init("subscriber", required: true, "The client's name (1 to 64 bytes).", schema: .stringSchema),
                .init("through", required: true, "The last seq it processed.", schema: .integerSchema),
            ], result: .objectSchema(["acknowledged": .integerSchema])) { params, _ in
            let subscriber = try params.requiredString("subscriber")
            guard let through = try params.optionalInteger("through", in: 0...Int64.max) else { throw RPCError.invalidParams("'through' is required") }
            let cursor = try await account.acknowledgeEvents(through: UInt64(through), subscriber: subscriber)
            return .object(["acknowledged": .number(Double(cursor))])
        }
        methods.register("events.cursor", summary: "The last seq `subscriber` acknowledged (null when it never did) and the latest seq given.",
                         params: [.init("subscriber", required: true, "The client's name.", schema: .stringSchema)],
                         result: .objectSchema(["acknowledged": .integerSchema, "latest": .integerSchema])) { params, _ in
            let cursor = try await account.eventCursor(subscriber: try params.requiredString("subscriber"))
            return .object(["acknowledged": cursor.map { .number(Double($0)) } ?? .null,
                            "latest": .number(Double(try await account.latestEventSeq()))])
        }
        let described = methods
        methods.register("rpc.discover", summary: "This API as an OpenRPC document (docs/daemon-openrpc.json).",
                         result: .object(["$ref": .string("https://raw.githubusercontent.com/open-rpc/meta-schema/master/schema.json")])) { _, _ in
            var all = described
            all.register("rpc.discover", summary: "This API as an OpenRPC document (docs/daemon-openrpc.json).",
                         result: .object(["$ref": .string("https://raw.githubusercontent.com/open-rpc/meta-schema/master/schema.json")])) { _, _ in .null }
            return all.openRPCDocument(title: "Hush daemon local API", version: "\(apiVersion).0.0", description: """
                JSON-RPC 2.0 over the Unix socket daemon.sock in the account's data directory, one message per line. \
                Errors of a method carry, as their code, the exit code the matching hush command would return.
                """)
        }
        return methods
    }

    /// The API's version: a new method or field keeps it, a removed or changed one bumps it.
    static let apiVersion = 1

    /// A method's error as the caller reads it: HushKit's with the exit code `hush` would give.
    static func translate(_ error: any Error) -> RPCError {
        let code = ExitStatus.code(for: error)
        var data: [String: JSONValue] = ["exitCode": .number(Double(code))]
        if let error = error as? HushError {
            data["kind"] = .string(error.kind.rawValue)
            data["reason"] = .string(error.reason)
            if let suggestion = error.suggestion { data["suggestion"] = .string(suggestion) }
        }
        return RPCError(code: Int(code), message: ExitStatus.message(for: error), data: .object(data))
    }
}
