import HushRelay
import PostgresNIO

// The relay's hottest reads as named prepared statements: each connection
// parses and plans them once, then only binds. (Every other query binds its
// values too, through unnamed statements; none is built from input.)

/// The identity a bearer token hash belongs to: every authenticated request.
struct TokenLookup: PostgresPreparedStatement {
    static let sql = "SELECT identity, expires_at FROM tokens WHERE token_hash = $1 AND expires_at > $2"
    typealias Row = TokenGrant

    let hash: [UInt8]
    let now: Int64

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 2)
        bindings.append(hash.bytea)
        bindings.append(now)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> TokenGrant {
        let (identity, expiresAt) = try row.decode((ByteBuffer, Int64).self)
        return TokenGrant(identity: identity.bytes, expiresAt: expiresAt)
    }
}

/// A sync page: unexpired envelopes after an id, oldest first.
struct MailboxPage: PostgresPreparedStatement {
    static let sql = """
        SELECT id, created_at, expires_at, envelope FROM messages
        WHERE mailbox = $1 AND id > $2 AND expires_at > $3 ORDER BY id LIMIT $4
        """
    typealias Row = StoredEnvelope

    let mailbox: [UInt8]
    let after: Int64
    let now: Int64
    let limit: Int64

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 4)
        bindings.append(mailbox.bytea)
        bindings.append(after)
        bindings.append(now)
        bindings.append(limit)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> StoredEnvelope {
        let (id, created, expires, envelope) = try row.decode((Int64, Int64, Int64, ByteBuffer).self)
        return StoredEnvelope(messageID: UInt64(id), timestamp: created, expiresAt: expires, envelope: envelope.bytes)
    }
}
