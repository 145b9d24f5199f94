import HushCrypto
import HushDatabase

/// The account's newest recovery key and the device list counter it came
/// with (see `Schema.addAccountRecoveryKey`). The key is secret: it crosses
/// in `SecureBytes`, and the copy bound into SQLite is wiped after the call.
public struct RecoveryKeyRepository {
    let database: Database

    /// The key kept, with its list counter; nil when none was (the keystore's
    /// key is then the account's).
    public func current() throws -> (listCounter: UInt64, key: SecureBytes)? {
        try database.queryFirst("SELECT list_counter, key FROM account_recovery_key WHERE id = 1") { row in
            var bytes = try row.get(1, as: [UInt8].self)
            defer { ConstantTime.wipe(&bytes) }
            return (UInt64(try row.get(0, as: Int64.self)), SecureBytes(copying: bytes))
        }
    }

    /// Keeps `key` when `listCounter` is above the counter of the key kept
    /// (or none is): returns whether it did. A key under the same counter or
    /// a lower one changes nothing, so keys handed on in any order settle on
    /// the newest.
    @discardableResult
    public func keepIfNewer(_ key: SecureBytes, listCounter: UInt64) throws -> Bool {
        guard listCounter > 0, listCounter <= UInt64(Int64.max) else { throw StoreError.invalidArgument("device list counter \(listCounter)") }
        guard key.count == 32 else { throw StoreError.invalidArgument("a recovery key of \(key.count) bytes") }
        if let held = try current(), held.listCounter >= listCounter { return false }
        var bytes = key.copyBytes()
        defer { ConstantTime.wipe(&bytes) }
        try database.execute("INSERT OR REPLACE INTO account_recovery_key(id, list_counter, key) VALUES (1, ?, ?)",
                             [Int64(listCounter), bytes])
        return true
    }
}
