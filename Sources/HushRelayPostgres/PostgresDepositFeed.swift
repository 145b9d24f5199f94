import Foundation
import HushCrypto
import HushRelay
import Logging
import PostgresNIO
import Synchronization

/// Deposits the other relay instances committed, heard through PostgreSQL's
/// LISTEN/NOTIFY on a connection of its own. A notice carries the instance,
/// the mailbox, the message id and the previous id only, never the envelope, which is read
/// from the table only when a socket for that mailbox is here.
///
/// The connection is probed every `probeInterval` (a half-open connection
/// would otherwise stay silent for hours); after a loss, and at the start,
/// every socket here whose mailbox got something since the last moment the
/// connection was known alive (minus `catchUpMargin`, for clock skew between
/// instances: ids follow the depositing instance's clock) gets one envelope,
/// which makes its client sync.
public struct PostgresDepositFeed: DepositFeed {
    let storage: PostgresRelayStorage
    static let probeInterval = Duration.seconds(5)
    static let probeTimeout = Duration.seconds(5)
    static let catchUpMargin: Int64 = 60_000

    public init(storage: PostgresRelayStorage) {
        self.storage = storage
    }

    struct FeedEnded: Error {}

    public func run(_ sockets: any DepositFeedSockets) async throws {
        let logger = storage.logger
        let alive = Heartbeat()
        var connectionID = 0
        while !Task.isCancelled {
            connectionID += 1
            let missedSince = alive.last - Self.catchUpMargin
            do {
                let connection = try await PostgresConnection.connect(configuration: storage.url.connectionConfiguration(),
                                                                      id: connectionID, logger: logger)
                do {
                    try await connection.listen(on: PostgresRelayStorage.depositChannel) { notices in
                        try await withThrowingTaskGroup(of: Void.self) { group in
                            group.addTask { try await probe(connection, alive: alive, logger: logger) }
                            group.addTask {
                                try await catchUp(since: missedSince, sockets: sockets)
                                for try await notice in notices {
                                    alive.beat()
                                    guard let (mailbox, id, previous) = parse(notice.payload), sockets.isConnected(mailbox) else { continue }
                                    if let stored = try await storage.message(mailbox: mailbox, id: id) {
                                        sockets.deliver(stored, previousMessageID: previous, to: mailbox)
                                    }
                                }
                                throw FeedEnded()
                            }
                            try await group.next()
                            group.cancelAll()
                        }
                    }
                } catch {
                    try? await connection.close()
                    throw error
                }
                try? await connection.close()
            } catch {
                // Cancellation is how the relay tells the feed to stop (graceful shutdown): a normal end, not a failure.
                guard !Task.isCancelled else { return }
                logger.warning("lost the PostgreSQL notice connection; reconnecting", metadata: ["error": "\(PostgresFailure(error))"])
            }
            guard !Task.isCancelled else { return }
            try? await Task.sleep(for: .seconds(1))
        }
    }

    /// `SELECT 1` every `probeInterval`; when one takes longer than
    /// `probeTimeout`, closes the connection and throws. Closed, not only
    /// given up on: PostgresNIO's query does not follow task cancellation (it
    /// waits for the server's answer or the channel's end), so on a connection
    /// that went silent (a server that stopped answering, a network path that
    /// drops everything) the probe's task group, which waits for its children,
    /// and the notices it ends, would wait as long as TCP takes to give up.
    private func probe(_ connection: PostgresConnection, alive: Heartbeat, logger: Logger) async throws {
        while true {
            try await Task.sleep(for: Self.probeInterval)
            let answered = try await Self.answers(within: Self.probeTimeout) {
                _ = try await connection.query("SELECT 1", logger: logger)
            } otherwise: {
                try? await connection.close()
            }
            guard answered else { throw FeedEnded() }
            alive.beat()
        }
    }

    /// Whether `ask` returns within `limit`. When it does not, `giveUp` runs
    /// before this returns false, and must make `ask` end (a task group waits
    /// for its children however long they take, cancelled or not).
    static func answers(within limit: Duration, _ ask: @escaping @Sendable () async throws -> Void,
                        otherwise giveUp: @escaping @Sendable () async -> Void) async throws -> Bool {
        try await withThrowingTaskGroup(of: Bool.self) { group in
            group.addTask {
                try await ask()
                return true
            }
            group.addTask {
                try await Task.sleep(for: limit)
                return false
            }
            let answered = try await group.next() ?? false
            if !answered { await giveUp() }
            group.cancelAll()
            return answered
        }
    }

    /// One envelope stored since `since` (Unix ms) to each mailbox with a socket here.
    private func catchUp(since: Int64, sockets: any DepositFeedSockets) async throws {
        let after = UInt64(max(0, since)) << MessageIDClock.sequenceBits
        for mailbox in sockets.connectedMailboxes {
            // Without a previous id: what else was missed is unknown, so the client syncs.
            if let stored = try await storage.messages(mailbox: mailbox, after: after, limit: 1, now: Self.now()).first {
                sockets.deliver(stored, previousMessageID: nil, to: mailbox)
            }
        }
    }

    /// `INSTANCE MAILBOXHEX ID PREVIOUS`; nil for this instance's own notices
    /// (it pushed those itself) and for anything malformed. An instance of an
    /// older version sends no PREVIOUS: its pushes then make the client sync.
    func parse(_ payload: String) -> ([UInt8], UInt64, UInt64?)? {
        let parts = payload.split(separator: " ")
        guard parts.count == 3 || parts.count == 4, parts[0] != Substring(storage.instance),
              let mailbox = try? Hex.decode(String(parts[1])), let id = UInt64(parts[2]) else { return nil }
        guard parts.count == 4 else { return (mailbox, id, nil) }
        guard let previous = UInt64(parts[3]), previous < id else { return nil }
        return (mailbox, id, previous)
    }

    static func now() -> Int64 { Int64((Date().timeIntervalSince1970 * 1000).rounded()) }
}

/// When the notice connection was last known alive (Unix ms).
final class Heartbeat: Sendable {
    private let time = Mutex(PostgresDepositFeed.now())
    var last: Int64 { time.withLock { $0 } }
    func beat() { time.withLock { $0 = PostgresDepositFeed.now() } }
}

extension PostgresRelayStorage {
    /// One stored envelope (for a notice), nil when acknowledged or expired since.
    func message(mailbox: [UInt8], id: UInt64) async throws -> StoredEnvelope? {
        let rows = try await client.query("""
            SELECT created_at, expires_at, envelope FROM messages WHERE mailbox = \(mailbox.bytea) AND id = \(Int64(clamping: id))
            """, logger: logger)
        for try await (created, expires, envelope) in rows.decode((Int64, Int64, ByteBuffer).self) {
            return StoredEnvelope(messageID: id, timestamp: created, expiresAt: expires, envelope: envelope.bytes)
        }
        return nil
    }
}
