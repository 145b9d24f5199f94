import HushProtocol
import HushRelay
import HushRelayAPI
import PostgresNIO

extension PostgresRelayStorage: IdentityStore {
    public func register(identity: [UInt8], signedPrekey: SignedPrekey, lastResortKEMPrekey: SignedPrekey,
                         oneTimePrekeys: [SignedPrekey], registeredAt: Int64) async throws -> PrekeyCounts {
        try await transaction { connection in
            // Locks the identity's row (when it exists) so that two registrations do not interleave.
            var previous: Int64?
            for try await at in try await connection.query(
                "SELECT registered_at FROM identities WHERE identity = \(identity.bytea) FOR UPDATE", logger: logger).decode(Int64.self) {
                previous = at
            }
            if let previous, previous >= registeredAt { throw RelayError.staleRegistration }
            try await connection.query("""
                INSERT INTO identities (identity, registered_at, signed_prekey, last_resort_kem_prekey)
                VALUES (\(identity.bytea), \(registeredAt), \(PrekeyCodec.encode(signedPrekey).bytea), \(PrekeyCodec.encode(lastResortKEMPrekey).bytea))
                ON CONFLICT (identity) DO UPDATE SET registered_at = excluded.registered_at,
                    signed_prekey = excluded.signed_prekey, last_resort_kem_prekey = excluded.last_resort_kem_prekey
                """, logger: logger)
            try await connection.query("INSERT INTO mailboxes (mailbox) VALUES (\(identity.bytea)) ON CONFLICT DO NOTHING", logger: logger)
            try await insertOneTime(oneTimePrekeys, identity: identity, on: connection)
            return try await counts(identity: identity, on: connection)
        }
    }

    public func isRegistered(identity: [UInt8]) async throws -> Bool {
        try await guarded {
            try await client.query("SELECT 1 FROM identities WHERE identity = \(identity.bytea)", logger: logger).collect().count > 0
        }
    }

    public func addOneTimePrekeys(identity: [UInt8], _ prekeys: [SignedPrekey]) async throws -> PrekeyCounts {
        try await transaction { connection in
            guard try await connection.query("SELECT 1 FROM identities WHERE identity = \(identity.bytea) FOR UPDATE", logger: logger)
                .collect().count > 0 else { throw RelayError.notFound("identity") }
            try await insertOneTime(prekeys, identity: identity, on: connection)
            return try await counts(identity: identity, on: connection)
        }
    }

    public func prekeyCounts(identity: [UInt8]) async throws -> PrekeyCounts {
        try await transaction { connection in
            var held: (Int64, ByteBuffer)?
            for try await row in try await connection.query("SELECT registered_at, signed_prekey FROM identities WHERE identity = \(identity.bytea)",
                                                            logger: logger).decode((Int64, ByteBuffer).self) { held = row }
            guard let (registeredAt, signed) = held else { throw RelayError.notFound("identity") }
            var counts = try await counts(identity: identity, on: connection)
            counts.registeredAt = registeredAt
            counts.signedPrekey = try PrekeyCodec.decode(signed.bytes)
            return counts
        }
    }

    public func takeBundle(identity: [UInt8], consumingOneTimePrekeys: Bool) async throws -> PrekeyBundle? {
        try await transaction { connection -> PrekeyBundle? in
            var stored: (ByteBuffer, ByteBuffer)?
            for try await row in try await connection.query(
                "SELECT signed_prekey, last_resort_kem_prekey FROM identities WHERE identity = \(identity.bytea)", logger: logger)
                .decode((ByteBuffer, ByteBuffer).self) { stored = row }
            guard let (signed, lastResort) = stored else { return nil }
            let oneTime = consumingOneTimePrekeys ? try await takeOneTime(.oneTimeX25519, identity: identity, on: connection) : nil
            let kem = try await (consumingOneTimePrekeys ? takeOneTime(.oneTimeKEM, identity: identity, on: connection) : nil)
                ?? PrekeyCodec.decode(lastResort.bytes)
            return try PrekeyBundle(identityKey: IdentityKey(rawRepresentation: identity), signedPrekey: PrekeyCodec.decode(signed.bytes),
                                    kemPrekey: kem, oneTimePrekey: oneTime)
        }
    }

    /// The lowest-numbered one-time prekey of `kind`, deleted as it is taken;
    /// SKIP LOCKED lets two instances hand out two different keys at once.
    private func takeOneTime(_ kind: PrekeyKind, identity: [UInt8], on connection: PostgresConnection) async throws -> SignedPrekey? {
        let rows = try await connection.query("""
            DELETE FROM one_time_prekeys WHERE (identity, kind, prekey_id) IN (
                SELECT identity, kind, prekey_id FROM one_time_prekeys WHERE identity = \(identity.bytea) AND kind = \(Int32(kind.rawValue))
                ORDER BY prekey_id LIMIT 1 FOR UPDATE SKIP LOCKED)
            RETURNING prekey
            """, logger: logger)
        for try await bytes in rows.decode(ByteBuffer.self) { return try PrekeyCodec.decode(bytes.bytes) }
        return nil
    }

    /// Adds prekeys up to the cap per kind (the identity's row is locked by the caller).
    private func insertOneTime(_ prekeys: [SignedPrekey], identity: [UInt8], on connection: PostgresConnection) async throws {
        var counts = try await counts(identity: identity, on: connection)
        let cap = RelayLimits.maxStoredOneTimePrekeysPerKind
        var accepted: [SignedPrekey] = []
        for prekey in prekeys where prekey.kind.isOneTime {
            if prekey.kind == .oneTimeX25519, counts.oneTimeX25519 < cap { counts.oneTimeX25519 += 1; accepted.append(prekey) }
            if prekey.kind == .oneTimeKEM, counts.oneTimeKEM < cap { counts.oneTimeKEM += 1; accepted.append(prekey) }
        }
        guard !accepted.isEmpty else { return }
        try await connection.query("""
            INSERT INTO one_time_prekeys (identity, kind, prekey_id, prekey)
            SELECT \(identity.bytea), * FROM unnest(\(accepted.map { Int32($0.kind.rawValue) }), \(accepted.map { Int64($0.id) }),
                \(accepted.map { PrekeyCodec.encode($0).bytea }))
            ON CONFLICT DO NOTHING
            """, logger: logger)
    }

    private func counts(identity: [UInt8], on connection: PostgresConnection) async throws -> PrekeyCounts {
        var counts = PrekeyCounts(oneTimeX25519: 0, oneTimeKEM: 0)
        let rows = try await connection.query(
            "SELECT kind, count(*) FROM one_time_prekeys WHERE identity = \(identity.bytea) GROUP BY kind", logger: logger)
        for try await (kind, count) in rows.decode((Int32, Int64).self) {
            if kind == Int32(PrekeyKind.oneTimeX25519.rawValue) { counts.oneTimeX25519 = Int(count) }
            if kind == Int32(PrekeyKind.oneTimeKEM.rawValue) { counts.oneTimeKEM = Int(count) }
        }
        return counts
    }
}
