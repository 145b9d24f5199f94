import Foundation
import HushCrypto
import HushRelay
import Logging
import PostgresNIO

/// Deposits the other relay instances committed, heard through PostgreSQL's
/// LISTEN/NOTIFY on a connection of its own. A notice carries the instance,
/// the mailbox and the message id only, never the envelope, which is read
/// from the table (so a notice is small and nothing secret travels twice).
public struct PostgresDepositFeed: DepositFeed {
    let storage: PostgresRelayStorage

    public init(storage: PostgresRelayStorage) {
        self.storage = storage
    }

    public func run(listening: @escaping @Sendable () -> [[UInt8]],
                    deliver: @escaping @Sendable (_ mailbox: [UInt8], _ envelope: StoredEnvelope) -> Void) async throws {
        let logger = storage.logger
        /// When the last connection was lost (Unix ms), for the catch-up.
        var lostAt: Int64?
        var connectionID = 0
        while !Task.isCancelled {
            connectionID += 1
            do {
                let connection = try await PostgresConnection.connect(configuration: storage.url.connectionConfiguration(),
                                                                      id: connectionID, logger: logger)
                do {
                    try await connection.listen(on: PostgresRelayStorage.depositChannel) { notices in
                        if let lostAt {
                            // Ids follow the clock (ms << 10): whatever was stored since a
                            // little before the loss has a higher id.
                            let since = UInt64(max(0, lostAt - 5_000)) << MessageIDClock.sequenceBits
                            for mailbox in listening() {
                                for stored in try await storage.messages(mailbox: mailbox, after: since, limit: 1_000, now: Self.now()) {
                                    deliver(mailbox, stored)
                                }
                            }
                        }
                        for try await notice in notices {
                            guard let (mailbox, id) = parse(notice.payload) else { continue }
                            if let stored = try await storage.message(mailbox: mailbox, id: id) { deliver(mailbox, stored) }
                        }
                    }
                } catch {
                    try? await connection.close()
                    throw error
                }
                try? await connection.close()
            } catch where !Task.isCancelled {
                logger.warning("lost the PostgreSQL notice connection; reconnecting", metadata: ["error": "\(String(reflecting: error))"])
            }
            guard !Task.isCancelled else { return }
            if lostAt == nil { lostAt = Self.now() }
            try? await Task.sleep(for: .seconds(1))
        }
    }

    /// `INSTANCE MAILBOXHEX ID`; nil for this instance's own notices (it
    /// pushed those itself) and for anything malformed.
    func parse(_ payload: String) -> ([UInt8], UInt64)? {
        let parts = payload.split(separator: " ")
        guard parts.count == 3, parts[0] != Substring(storage.instance),
              let mailbox = try? Hex.decode(String(parts[1])), let id = UInt64(parts[2]) else { return nil }
        return (mailbox, id)
    }

    static func now() -> Int64 { Int64((Date().timeIntervalSince1970 * 1000).rounded()) }
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
