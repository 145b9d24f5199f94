import HushDatabase
import HushRelayAPI

extension SQLCipherRelayStorage: DirectoryStore {
    public func writeDirectory(name: [UInt8], counter: UInt64, record: [UInt8], now: Int64) async throws -> DirectoryWrite {
        precondition(counter <= UInt64(Int64.max), "the route refuses counters above 2^63 - 1")
        return try write { db in
            let held = try db.queryFirst("SELECT counter, record FROM directories WHERE name = ?", [name]) {
                (counter: UInt64(try $0.get(0, as: Int64.self)), record: try $0.get(1, as: [UInt8].self))
            }
            let result = try DirectoryWrite.deciding(held: held, counter: counter, record: record)
            try db.execute("INSERT OR REPLACE INTO directories (name, counter, record, written_at) VALUES (?, ?, ?, ?)",
                           [name, Int64(counter), record, now])
            return result
        }
    }

    public func directory(name: [UInt8]) async throws -> DirectoryRecord? {
        try read { db in
            try db.queryFirst("SELECT counter, record, written_at FROM directories WHERE name = ?", [name]) { row in
                DirectoryRecord(name: name, counter: UInt64(try row.get(0, as: Int64.self)), record: try row.get(1, as: [UInt8].self),
                                writtenAt: try row.get(2, as: Int64.self))
            }
        }
    }
}
