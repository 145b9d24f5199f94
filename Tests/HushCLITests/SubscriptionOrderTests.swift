import Foundation
import HushDaemon
import Testing

/// A method that starts a stream (`events.subscribe`) answers first and
/// streams after: what it spawns waits for the answer to be written. Under
/// load the first notification once came before the answer, and a client
/// reading up to the answer dropped it (`hush listen` through a daemon never
/// printed the connection's state, CI, s54).
@Suite struct SubscriptionOrderTests {
    @Test func whatAMethodSpawnsIsNotifiedAfterItsAnswer() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("order-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var methods = RPCMethods()
        methods.register("stream", summary: "notifies from spawned work, and answers late", result: .objectSchema([:])) { _, call in
            call.spawn {
                try? await call.notify("event", .object(["n": .number(1)]))
                try? await call.notify("event", .object(["n": .number(2)]))
            }
            // The spawned work would run in this time, before the answer.
            try await Task.sleep(for: .milliseconds(300))
            return .object(["subscribed": .bool(true)])
        }
        let server = LocalSocketServer(path: directory + "/d.sock", methods: methods) { .internalError("\($0)") }
        let ready = AsyncStream<Void>.makeStream()
        let serving = Task { try await server.run { ready.continuation.yield() } }
        defer { serving.cancel() }
        for await _ in ready.stream { break }

        let lines = try await Task.detached {
            let connection = try DaemonConnection.connect(socket: server.path)
            defer { connection.close() }
            try connection.send(.object(["jsonrpc": .string("2.0"), "id": .number(1), "method": .string("stream"), "params": .object([:])]))
            return try (0..<3).map { _ in try connection.receive() }
        }.value
        #expect(lines.first??["result"]?["subscribed"] == .bool(true), "\(lines)")
        #expect(lines.dropFirst().map { $0?["params"]?["n"] } == [.number(1), .number(2)], "\(lines)")
    }
}
