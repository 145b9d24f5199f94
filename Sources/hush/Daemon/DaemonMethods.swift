import Foundation
import HushDaemon
import HushKit
import Synchronization

/// The daemon's local API besides `cli.run`: what a bot or a script calls
/// without parsing a command's output. Results are the objects the matching
/// `hush … --json` command prints; errors carry the exit code that command
/// would return as their code (docs/DAEMON-API.md).
enum DaemonMethods {
    /// Everything the daemon answers. `stop` ends the daemon.
    static func make(account: HushAccount, home: String, startedAt: Date, stop: @escaping @Sendable () -> Void) -> RPCMethods {
        var methods = RPCMethods()
        DaemonCommandRunner.register(in: &methods, account: account, home: home)
        // Whether the live connection is up, for subscribers that come later than its last change.
        let online = LiveState()
        let connectionEvents = account.events()
        Task {
            for await event in connectionEvents {
                if case let .connectionChanged(isOnline) = event { online.set(isOnline) }
            }
        }

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
            Sends a text to a contact or group. result: the message as `hush send --json` prints it, with queuedBecause when the relay does not have it yet.
            """, params: [
                .init("to", required: true, "A contact's or group's name, as `hush send` takes it (bob, contact:bob, group:team).", schema: .stringSchema),
                .init("text", required: true, "The message (1 to 32,768 bytes of UTF-8).", schema: .stringSchema),
            ], result: .anyObjectSchema) { params, _ in
            let name = try params.requiredString("to"), text = try params.requiredString("text")
            guard !text.isEmpty else { throw RPCError.invalidParams("'text' is empty: nothing to send") }
            let sent = try await Names(account: account).room(name).room.sendReportingDelivery(text)
            var object = Presentation.json(sent.message, contact: name)
            if let reason = sent.reason { object["queuedBecause"] = reason }
            return try JSONValue(jsonObject: object)
        }
        methods.register("events.subscribe", summary: """
            Streams every event as an `event` notification (the objects `hush listen --json` prints) until the connection closes; \
            the result comes first.
            """, result: .objectSchema(["subscribed": .booleanSchema])) { _, call in
            let events = account.events()
            call.spawn {
                // The connection's state first, as a listener that started with the daemon would have seen it.
                try? await call.notify("event", .object(["event": .string("connection"), "online": .bool(online.value)]))
                for await event in events {
                    guard let details = await EventDetails.read(event, from: account) else { continue }
                    do {
                        try await call.notify("event", try JSONValue(jsonObject: ListenCommand.describe(details)))
                    } catch {
                        return
                    }
                }
            }
            return .object(["subscribed": .bool(true)])
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

/// The live connection's last known state.
private final class LiveState: Sendable {
    private let online = Mutex(false)
    var value: Bool { online.withLock { $0 } }
    func set(_ value: Bool) { online.withLock { $0 = value } }
}
