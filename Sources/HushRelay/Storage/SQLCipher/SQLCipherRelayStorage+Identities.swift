import HushDatabase
import HushProtocol
import HushRelayAPI

extension SQLCipherRelayStorage: IdentityStore {
    public func register(identity: [UInt8], signedPrekey: SignedPrekey, lastResortKEMPrekey: SignedPrekey,
                         oneTimePrekeys: [SignedPrekey], registeredAt: Int64) async throws -> PrekeyCounts {
        try write { db in
            let previous = try db.queryFirst("SELECT registered_at FROM identities WHERE identity = ?", [identity]) { try $0.get(0, as: Int64.self) }
            if let previous, previous >= registeredAt { throw RelayError.staleRegistration }
            // (No UPSERT: Debian's SQLCipher build does not parse ON CONFLICT … DO UPDATE.)
            if previous == nil {
                try db.execute("INSERT INTO identities (identity, registered_at, signed_prekey, last_resort_kem_prekey) VALUES (?, ?, ?, ?)",
                               [identity, registeredAt, PrekeyCodec.encode(signedPrekey), PrekeyCodec.encode(lastResortKEMPrekey)])
            } else {
                try db.execute("UPDATE identities SET registered_at = ?, signed_prekey = ?, last_resort_kem_prekey = ? WHERE identity = ?",
                               [registeredAt, PrekeyCodec.encode(signedPrekey), PrekeyCodec.encode(lastResortKEMPrekey), identity])
            }
            try Self.insertOneTime(oneTimePrekeys, identity: identity, db: db)
            return try Self.counts(identity: identity, db: db)
        }
    }

    public func isRegistered(identity: [UInt8]) async throws -> Bool {
        try read { db in try db.queryFirst("SELECT 1 FROM identities WHERE identity = ?", [identity]) { _ in true } ?? false }
    }

    public func addOneTimePrekeys(identity: [UInt8], _ prekeys: [SignedPrekey]) async throws -> PrekeyCounts {
        try write { db in
            guard try db.queryFirst("SELECT 1 FROM identities WHERE identity = ?", [identity], { _ in true }) != nil else {
                throw RelayError.notFound("identity")
            }
            try Self.insertOneTime(prekeys, identity: identity, db: db)
            return try Self.counts(identity: identity, db: db)
        }
    }

    public func prekeyCounts(identity: [UInt8]) async throws -> PrekeyCounts {
        try read { db in
            guard let (registeredAt, signed) = try db.queryFirst("SELECT registered_at, signed_prekey FROM identities WHERE identity = ?",
                                                                 [identity], { row in (try row.get(0, as: Int64.self), try row.get(1, as: [UInt8].self)) })
            else { throw RelayError.notFound("identity") }
            var counts = try Self.counts(identity: identity, db: db)
            counts.registeredAt = registeredAt
            counts.signedPrekey = try PrekeyCodec.decode(signed)
            return counts
        }
    }

    public func takeBundle(identity: [UInt8], consumingOneTimePrekeys: Bool) async throws -> PrekeyBundle? {
        try write { db in
            guard let (signed, lastResort) = try db.queryFirst(
                "SELECT signed_prekey, last_resort_kem_prekey FROM identities WHERE identity = ?", [identity],
                { row in (try row.get(0, as: [UInt8].self), try row.get(1, as: [UInt8].self)) }) else { return nil }
            let oneTime = consumingOneTimePrekeys ? try Self.takeOneTime(kind: .oneTimeX25519, identity: identity, db: db) : nil
            let kem = try (consumingOneTimePrekeys ? Self.takeOneTime(kind: .oneTimeKEM, identity: identity, db: db) : nil)
                ?? PrekeyCodec.decode(lastResort)
            return try PrekeyBundle(identityKey: IdentityKey(rawRepresentation: identity),
                                    signedPrekey: PrekeyCodec.decode(signed), kemPrekey: kem, oneTimePrekey: oneTime)
        }
    }

    private static func takeOneTime(kind: PrekeyKind, identity: [UInt8], db: Database) throws -> SignedPrekey? {
        guard let (id, bytes) = try db.queryFirst(
            "SELECT prekey_id, prekey FROM one_time_prekeys WHERE identity = ? AND kind = ? ORDER BY prekey_id LIMIT 1",
            [identity, Int(kind.rawValue)], { row in (try row.get(0, as: Int64.self), try row.get(1, as: [UInt8].self)) }) else { return nil }
        try db.execute("DELETE FROM one_time_prekeys WHERE identity = ? AND kind = ? AND prekey_id = ?", [identity, Int(kind.rawValue), id])
        return try PrekeyCodec.decode(bytes)
    }

    private static func insertOneTime(_ prekeys: [SignedPrekey], identity: [UInt8], db: Database) throws {
        let cap = RelayLimits.maxStoredOneTimePrekeysPerKind
        for prekey in prekeys where prekey.kind.isOneTime {
            let stored = try db.queryFirst("SELECT count(*) FROM one_time_prekeys WHERE identity = ? AND kind = ?",
                                           [identity, Int(prekey.kind.rawValue)]) { try $0.get(0, as: Int.self) } ?? 0
            guard stored < cap else { continue }
            try db.execute("INSERT OR IGNORE INTO one_time_prekeys (identity, kind, prekey_id, prekey) VALUES (?, ?, ?, ?)",
                           [identity, Int(prekey.kind.rawValue), Int64(prekey.id), PrekeyCodec.encode(prekey)])
        }
    }

    private static func counts(identity: [UInt8], db: Database) throws -> PrekeyCounts {
        let rows = try db.query("SELECT kind, count(*) FROM one_time_prekeys WHERE identity = ? GROUP BY kind", [identity]) { row in
            (try row.get(0, as: Int.self), try row.get(1, as: Int.self))
        }
        var counts = PrekeyCounts(oneTimeX25519: 0, oneTimeKEM: 0)
        for (kind, count) in rows {
            if kind == Int(PrekeyKind.oneTimeX25519.rawValue) { counts.oneTimeX25519 = count }
            if kind == Int(PrekeyKind.oneTimeKEM.rawValue) { counts.oneTimeKEM = count }
        }
        return counts
    }
}
