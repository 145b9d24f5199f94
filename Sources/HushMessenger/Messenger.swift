import HushCrypto
import HushProtocol
import HushStore

/// The send/receive pipeline of one identity. The CLI only drives it.
///
/// Rules it keeps (see README "How a message travels"):
/// - Plaintext is sealed before anything is written to the outbox; the outbox
///   and the relay only ever hold sealed envelopes.
/// - A sent message, the outbox request and the advanced ratchet state are
///   written in one transaction; a received message, the ratchet state and
///   the sync cursor likewise, and the relay is acknowledged only after that
///   commit. A crash at any point loses nothing and duplicates nothing.
/// - The relay de-duplicates on the request id; the receiver de-duplicates on
///   the client message id.
public actor Messenger {
    public let identity: IdentityKeyPair
    let store: MessageStore
    let transport: any RelayTransport
    let clock: any MessengerClock
    let random: any RandomSource
    let backoff: BackoffPolicy
    let (events, eventSink) = AsyncStream<MessengerEvent>.makeStream(bufferingPolicy: .bufferingNewest(1024))
    /// Whether this run re-authenticated already after a 401 (the rule: once).
    var reauthenticated = false
    var authenticated = false
    /// Whether prekey counts at the relay may have dropped (a first-contact
    /// message used one-time prekeys, or this run has not checked yet).
    var prekeysMayNeedRefill = true

    public init(identity: IdentityKeyPair, store: MessageStore, transport: any RelayTransport,
                clock: any MessengerClock = SystemClock(), random: any RandomSource = SystemRandom(),
                backoff: BackoffPolicy = .outbox) {
        self.identity = identity
        self.store = store
        self.transport = transport
        self.clock = clock
        self.random = random
        self.backoff = backoff
    }

    /// Events for live views. One consumer at a time.
    public nonisolated var eventStream: AsyncStream<MessengerEvent> { events }

    func emit(_ event: MessengerEvent) {
        eventSink.yield(event)
    }

    /// Authenticates once per run (and again after a 401, once). The token is
    /// kept in the (encrypted) store until shortly before it expires, so a
    /// script that runs `hush sync` often does not log in every time (the
    /// relay rate-limits logins per address). After a 401 the kept token is
    /// not tried again.
    func ensureAuthenticated() async throws(DeliveryFailure) {
        guard !authenticated else { return }
        if !reauthenticated, let kept = keptSessionToken(), kept.expiresAt > clock.now() + Messenger.tokenRenewalMarginMilliseconds {
            transport.resume(kept, identity: identity)
            authenticated = true
            return
        }
        try await transport.authenticate(identity: identity)
        authenticated = true
        if let token = transport.sessionToken {
            try? store.settings.set(SettingsRepository.Name.sessionToken, to: "\(token.expiresAt) \(token.token)")
        }
    }

    /// A token younger than this margin before its expiry is not resumed.
    static let tokenRenewalMarginMilliseconds: Int64 = 60_000

    private func keptSessionToken() -> SessionToken? {
        guard let value = try? store.settings.value(SettingsRepository.Name.sessionToken),
              let space = value.firstIndex(of: " "), let expiresAt = Int64(value[..<space]) else { return nil }
        return SessionToken(token: String(value[value.index(after: space)...]), expiresAt: expiresAt)
    }

    /// Runs a relay call, re-authenticating once when the relay answers 401.
    func withReauthentication<T: Sendable>(_ call: () async throws(DeliveryFailure) -> T) async throws(DeliveryFailure) -> T {
        try await ensureAuthenticated()
        do {
            return try await call()
        } catch .unauthorized {
            guard !reauthenticated else { throw .unauthorized }
            reauthenticated = true
            authenticated = false
            try await ensureAuthenticated()
            return try await call()
        }
    }

    // MARK: Queries the CLI shows

    public func conversations() throws -> [ConversationSummary] {
        try store.conversations.list()
    }

    public func contacts() throws -> [Contact] {
        try store.contacts.all()
    }

    public func outbox() throws -> [OutboxItem] {
        try store.outbox.items(status: .pending) + store.outbox.items(status: .failed)
    }

    public func search(_ query: String, limit: Int = 20) throws -> [SearchHit] {
        try store.messages.search(query, limit: limit)
    }

    public func relayCursor() throws -> Int64 {
        try store.settings.syncCursor() ?? 0
    }
}

extension Messenger {
    /// A page of the conversation with `name`, oldest first (keyset pagination).
    public func history(with name: String, before: Int64? = nil, after: Int64? = nil, limit: Int = 50) throws -> [StoredMessage] {
        guard let contact = try store.contacts.contact(named: name) else { throw MessengerError.unknownContact(name) }
        let conversation = try store.conversations.conversation(forContact: contact.id, title: contact.name, at: clock.now())
        return try store.messages.history(conversationId: conversation, before: before, after: after, limit: limit)
    }

    /// The contact name of a conversation, for listing search hits.
    public func contactName(conversationId: Int64) throws -> String? {
        try store.contacts.contact(conversationId: conversationId)?.name
    }

    public func storageUsage() throws -> [StorageUsage] {
        try store.conversations.storageUsage()
    }

    public func quarantined() throws -> [QuarantineRepository.Entry] {
        try store.quarantine.all()
    }

    public func doctor() throws -> DoctorReport {
        try store.doctor()
    }
}
