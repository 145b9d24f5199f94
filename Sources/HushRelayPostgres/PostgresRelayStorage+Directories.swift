import HushCrypto
import HushRelay
import PostgresNIO

extension PostgresRelayStorage: DirectoryStore {
    public func writeDirectory(name: [UInt8], counter: UInt64, record: [UInt8], now: Int64) async throws -> DirectoryWrite {
        precondition(counter <= UInt64(Int64.max), "the route refuses counters above 2^63 - 1")
        return try await transaction { connection in
            // Serialises writes of one name across instances (a row lock
            // would not cover a first write), so the later sees the earlier's counter.
            try await connection.query("SELECT pg_advisory_xact_lock(hashtextextended(\(Hex.encode(name)), 1))", logger: logger)
            var held: (counter: UInt64, record: [UInt8])?
            let rows = try await connection.query("SELECT counter, record FROM directories WHERE name = \(name.bytea)", logger: logger)
            for try await (counter, record) in rows.decode((Int64, ByteBuffer).self) { held = (UInt64(counter), record.bytes) }
            let result = try DirectoryWrite.deciding(held: held, counter: counter, record: record)
            try await connection.query("""
                INSERT INTO directories (name, counter, record, written_at) VALUES (\(name.bytea), \(Int64(counter)), \(record.bytea), \(now))
                ON CONFLICT (name) DO UPDATE SET counter = excluded.counter, record = excluded.record, written_at = excluded.written_at
                """, logger: logger)
            return result
        }
    }

    public func directory(name: [UInt8]) async throws -> DirectoryRecord? {
        try await guarded {
            var found: DirectoryRecord?
            let rows = try await client.query("SELECT counter, record, written_at FROM directories WHERE name = \(name.bytea)", logger: logger)
            for try await (counter, record, written) in rows.decode((Int64, ByteBuffer, Int64).self) {
                found = DirectoryRecord(name: name, counter: UInt64(counter), record: record.bytes, writtenAt: written)
            }
            return found
        }
    }
}
