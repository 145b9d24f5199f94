import HushRelay
import HushRelayAPI
import PostgresNIO

extension PostgresRelayStorage: AuthStore {
    public func storeChallenge(nonce: [UInt8], identity: [UInt8], expiresAt: Int64) async throws {
        try await guarded {
            try await client.query("""
                INSERT INTO challenges (nonce, identity, expires_at) VALUES (\(nonce.bytea), \(identity.bytea), \(expiresAt))
                ON CONFLICT (nonce) DO UPDATE SET identity = excluded.identity, expires_at = excluded.expires_at
                """, logger: logger)
        }
    }

    public func consumeChallenge(nonce: [UInt8], identity: [UInt8], now: Int64) async throws -> Bool {
        try await guarded {
            // One statement: of two instances consuming the same nonce, one gets the row.
            let rows = try await client.query("DELETE FROM challenges WHERE nonce = \(nonce.bytea) RETURNING identity, expires_at", logger: logger)
            var fresh = false
            for try await (owner, expiresAt) in rows.decode((ByteBuffer, Int64).self) { fresh = owner.bytes == identity && expiresAt > now }
            return fresh
        }
    }

    public func storeToken(hash: [UInt8], identity: [UInt8], expiresAt: Int64) async throws {
        try await guarded {
            try await client.query("""
                INSERT INTO tokens (token_hash, identity, expires_at) VALUES (\(hash.bytea), \(identity.bytea), \(expiresAt))
                ON CONFLICT (token_hash) DO UPDATE SET identity = excluded.identity, expires_at = excluded.expires_at
                """, logger: logger)
        }
    }

    public func tokenIdentity(hash: [UInt8], now: Int64) async throws -> TokenGrant? {
        try await guarded {
            var grant: TokenGrant?
            for try await found in try await client.execute(TokenLookup(hash: hash, now: now), logger: logger) { grant = found }
            return grant
        }
    }
}

extension PostgresRelayStorage: CredentialStore {
    public func updateCredentials(mailbox: [UInt8], add: [[UInt8]], remove: [[UInt8]]) async throws -> Int {
        try await transaction { connection in
            if !remove.isEmpty {
                try await connection.query(
                    "DELETE FROM credentials WHERE mailbox = \(mailbox.bytea) AND credential_hash = ANY(\(remove.map(\.bytea)))", logger: logger)
            }
            if !add.isEmpty {
                try await connection.query("""
                    INSERT INTO credentials (mailbox, credential_hash) SELECT \(mailbox.bytea), h FROM unnest(\(add.map(\.bytea))) AS h
                    ON CONFLICT DO NOTHING
                    """, logger: logger)
            }
            var count = 0
            for try await n in try await connection.query("SELECT count(*) FROM credentials WHERE mailbox = \(mailbox.bytea)", logger: logger)
                .decode(Int64.self) { count = Int(n) }
            guard count <= RelayLimits.maxCredentialsPerMailbox else {
                throw RelayError.malformed("more than \(RelayLimits.maxCredentialsPerMailbox) credentials for one mailbox")
            }
            return count
        }
    }

    public func hasCredential(mailbox: [UInt8], hash: [UInt8]) async throws -> Bool {
        try await guarded {
            try await client.query("SELECT 1 FROM credentials WHERE mailbox = \(mailbox.bytea) AND credential_hash = \(hash.bytea)",
                                   logger: logger).collect().count > 0
        }
    }
}
