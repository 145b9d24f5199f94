import HushDatabase
import HushProtocol
import HushRelayAPI

extension SQLCipherRelayStorage: AuthStore {
    public func storeChallenge(nonce: [UInt8], identity: [UInt8], expiresAt: Int64) async throws {
        try write { db in
            try db.execute("INSERT OR REPLACE INTO challenges (nonce, identity, expires_at) VALUES (?, ?, ?)", [nonce, identity, expiresAt])
        }
    }

    public func consumeChallenge(nonce: [UInt8], identity: [UInt8], now: Int64) async throws -> Bool {
        try write { db in
            guard let (owner, expiresAt) = try db.queryFirst("SELECT identity, expires_at FROM challenges WHERE nonce = ?", [nonce], {
                row in (try row.get(0, as: [UInt8].self), try row.get(1, as: Int64.self))
            }) else { return false }
            try db.execute("DELETE FROM challenges WHERE nonce = ?", [nonce])
            return owner == identity && expiresAt > now
        }
    }

    public func storeToken(hash: [UInt8], identity: [UInt8], expiresAt: Int64) async throws {
        try write { db in
            try db.execute("INSERT OR REPLACE INTO tokens (token_hash, identity, expires_at) VALUES (?, ?, ?)", [hash, identity, expiresAt])
        }
    }

    public func tokenIdentity(hash: [UInt8], now: Int64) async throws -> TokenGrant? {
        try read { db in
            try db.queryFirst("SELECT identity, expires_at FROM tokens WHERE token_hash = ? AND expires_at > ?", [hash, now]) { row in
                TokenGrant(identity: try row.get(0, as: [UInt8].self), expiresAt: try row.get(1, as: Int64.self))
            }
        }
    }
}

extension SQLCipherRelayStorage: CredentialStore {
    public func updateCredentials(mailbox: [UInt8], add: [[UInt8]], remove: [[UInt8]]) async throws -> Int {
        try write { db in
            for hash in remove { try db.execute("DELETE FROM credentials WHERE mailbox = ? AND credential_hash = ?", [mailbox, hash]) }
            for hash in add { try db.execute("INSERT OR IGNORE INTO credentials (mailbox, credential_hash) VALUES (?, ?)", [mailbox, hash]) }
            let count = try db.queryFirst("SELECT count(*) FROM credentials WHERE mailbox = ?", [mailbox]) { try $0.get(0, as: Int.self) } ?? 0
            guard count <= RelayLimits.maxCredentialsPerMailbox else {
                throw RelayError.malformed("more than \(RelayLimits.maxCredentialsPerMailbox) credentials for one mailbox")
            }
            return count
        }
    }

    public func hasCredential(mailbox: [UInt8], hash: [UInt8]) async throws -> Bool {
        try read { db in
            try db.queryFirst("SELECT 1 FROM credentials WHERE mailbox = ? AND credential_hash = ?", [mailbox, hash]) { _ in true } ?? false
        }
    }
}
