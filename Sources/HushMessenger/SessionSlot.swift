import HushCrypto
import HushProtocol
import HushStore

/// Where a received envelope's session is kept: the contact's one session
/// with its account key (`ratchet_sessions`), or, for a session one of its
/// devices started (§20.10), the one for that device (`device_sessions`).
struct SessionSlot {
    let store: MessageStore
    let contactId: Int64
    /// The device's key; nil for the contact's account session.
    let deviceKey: [UInt8]?

    func load() throws -> SecureBytes? {
        guard let deviceKey else { return try store.sessions.load(contactId: contactId) }
        return try store.deviceSessions.load(contactId: contactId, deviceKey: deviceKey)
    }

    /// The handshake id (`EK_A`) of the session held here, naming it: a
    /// resend after a decryption error is counted per session of the peer
    /// (docs/PROTOCOL.md §10.1). Empty with no session (or one that no
    /// longer decodes): then the one resend allowed with no session.
    func currentHandshakeID() throws -> [UInt8] {
        try load().flatMap { try? Session(serialized: $0) }?.handshakeID ?? []
    }

    func save(_ session: Session, at time: Int64) throws {
        guard let deviceKey else {
            try store.sessions.save(state: session.serialized(), contactId: contactId, at: time)
            return
        }
        try store.deviceSessions.save(state: session.serialized(), contactId: contactId, deviceKey: deviceKey, at: time)
    }
}
