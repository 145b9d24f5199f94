import HushCrypto
import HushProtocol
import HushRelayAPI
import Synchronization

/// The in-memory driver: same semantics as the SQL ones, nothing on disk.
/// For tests and for measuring what the database costs.
public final class InMemoryRelayStorage: RelayStorageDriver {
    struct IdentityState {
        var registeredAt: Int64
        var signedPrekey: SignedPrekey
        var lastResortKEMPrekey: SignedPrekey
        var oneTimeX25519: [UInt32: SignedPrekey] = [:]
        var oneTimeKEM: [UInt32: SignedPrekey] = [:]
    }
    struct Mailbox {
        var messages: [UInt64: StoredEnvelope] = [:]
        var bytes = 0
        /// The last id given to a deposit here (the push's `previousMessageID`).
        var lastID: UInt64 = 0
        var deposits: [String: DepositRecord] = [:]
        var credentials: Set<[UInt8]> = []
    }
    struct State {
        var identities: [[UInt8]: IdentityState] = [:]
        var mailboxes: [[UInt8]: Mailbox] = [:]
        var challenges: [[UInt8]: (identity: [UInt8], expiresAt: Int64)] = [:]
        var tokens: [[UInt8]: TokenGrant] = [:]
        var blobs: [String: BlobRecord] = [:]
        var directories: [[UInt8]: DirectoryRecord] = [:]
        var ids = MessageIDClock()
    }

    private let state = Mutex(State())

    public init() {}

    public func register(identity: [UInt8], signedPrekey: SignedPrekey, lastResortKEMPrekey: SignedPrekey,
                         oneTimePrekeys: [SignedPrekey], registeredAt: Int64) async throws -> PrekeyCounts {
        try state.withLock { state in
            if let existing = state.identities[identity], existing.registeredAt >= registeredAt {
                throw RelayError.staleRegistration
            }
            var entry = state.identities[identity]
                ?? IdentityState(registeredAt: registeredAt, signedPrekey: signedPrekey, lastResortKEMPrekey: lastResortKEMPrekey)
            entry.registeredAt = registeredAt
            entry.signedPrekey = signedPrekey
            entry.lastResortKEMPrekey = lastResortKEMPrekey
            Self.add(oneTimePrekeys, to: &entry)
            state.identities[identity] = entry
            return Self.counts(entry)
        }
    }

    public func isRegistered(identity: [UInt8]) async throws -> Bool {
        state.withLock { $0.identities[identity] != nil }
    }

    public func addOneTimePrekeys(identity: [UInt8], _ prekeys: [SignedPrekey]) async throws -> PrekeyCounts {
        try state.withLock { state in
            guard var entry = state.identities[identity] else { throw RelayError.notFound("identity") }
            Self.add(prekeys, to: &entry)
            state.identities[identity] = entry
            return Self.counts(entry)
        }
    }

    public func prekeyCounts(identity: [UInt8]) async throws -> PrekeyCounts {
        try state.withLock { state in
            guard let entry = state.identities[identity] else { throw RelayError.notFound("identity") }
            var counts = Self.counts(entry)
            counts.registeredAt = entry.registeredAt
            counts.signedPrekey = entry.signedPrekey
            return counts
        }
    }

    public func takeBundle(identity: [UInt8], consumingOneTimePrekeys: Bool) async throws -> PrekeyBundle? {
        try state.withLock { state in
            guard var entry = state.identities[identity] else { return nil }
            let oneTime = consumingOneTimePrekeys ? entry.oneTimeX25519.keys.min().flatMap { entry.oneTimeX25519.removeValue(forKey: $0) } : nil
            let kem = (consumingOneTimePrekeys ? entry.oneTimeKEM.keys.min().flatMap { entry.oneTimeKEM.removeValue(forKey: $0) } : nil)
                ?? entry.lastResortKEMPrekey
            state.identities[identity] = entry
            return try PrekeyBundle(identityKey: IdentityKey(rawRepresentation: identity), signedPrekey: entry.signedPrekey,
                                    kemPrekey: kem, oneTimePrekey: oneTime)
        }
    }

    static func add(_ prekeys: [SignedPrekey], to entry: inout IdentityState) {
        let cap = RelayLimits.maxStoredOneTimePrekeysPerKind
        for prekey in prekeys {
            switch prekey.kind {
            case .oneTimeX25519 where entry.oneTimeX25519.count < cap || entry.oneTimeX25519[prekey.id] != nil:
                if entry.oneTimeX25519[prekey.id] == nil { entry.oneTimeX25519[prekey.id] = prekey }
            case .oneTimeKEM where entry.oneTimeKEM.count < cap || entry.oneTimeKEM[prekey.id] != nil:
                if entry.oneTimeKEM[prekey.id] == nil { entry.oneTimeKEM[prekey.id] = prekey }
            default:
                continue
            }
        }
    }

    static func counts(_ entry: IdentityState) -> PrekeyCounts {
        PrekeyCounts(oneTimeX25519: entry.oneTimeX25519.count, oneTimeKEM: entry.oneTimeKEM.count)
    }

    public func storeChallenge(nonce: [UInt8], identity: [UInt8], expiresAt: Int64) async throws {
        state.withLock { $0.challenges[nonce] = (identity, expiresAt) }
    }

    public func consumeChallenge(nonce: [UInt8], identity: [UInt8], now: Int64) async throws -> Bool {
        state.withLock { state in
            guard let challenge = state.challenges.removeValue(forKey: nonce) else { return false }
            return challenge.identity == identity && challenge.expiresAt > now
        }
    }

    public func storeToken(hash: [UInt8], identity: [UInt8], expiresAt: Int64) async throws {
        state.withLock { $0.tokens[hash] = TokenGrant(identity: identity, expiresAt: expiresAt) }
    }

    public func tokenIdentity(hash: [UInt8], now: Int64) async throws -> TokenGrant? {
        state.withLock { state in
            guard let grant = state.tokens[hash], grant.expiresAt > now else { return nil }
            return grant
        }
    }

    public func updateCredentials(mailbox: [UInt8], add: [[UInt8]], remove: [[UInt8]]) async throws -> Int {
        try state.withLock { state in
            var box = state.mailboxes[mailbox] ?? Mailbox()
            for hash in remove { box.credentials.remove(hash) }
            for hash in add { box.credentials.insert(hash) }
            guard box.credentials.count <= RelayLimits.maxCredentialsPerMailbox else {
                throw RelayError.malformed("more than \(RelayLimits.maxCredentialsPerMailbox) credentials for one mailbox")
            }
            state.mailboxes[mailbox] = box
            return box.credentials.count
        }
    }

    public func hasCredential(mailbox: [UInt8], hash: [UInt8]) async throws -> Bool {
        state.withLock { $0.mailboxes[mailbox]?.credentials.contains(hash) ?? false }
    }

    /// Every check and the store under one lock acquisition.
    public func submit(_ deposit: DepositSubmission) async throws -> DepositOutcome {
        let digest = SHA256.hash(deposit.envelope)
        return try state.withLock { state in try DepositPolicy.apply(deposit, digest: digest, to: &state) }
    }

    /// Every deposit of the fan-out under one lock acquisition: nobody sees
    /// some of them stored and not the others.
    public func submitFanOut(_ deposits: [DepositSubmission]) async throws -> [Result<DepositOutcome, any Error>] {
        let digested = DepositSubmission.digested(deposits)
        return try state.withLock { state in try DepositPolicy.applyBatch(digested, to: &state) }
    }

    public func messages(mailbox: [UInt8], after: UInt64, limit: Int, now: Int64) async throws -> [StoredEnvelope] {
        state.withLock { state in
            guard let box = state.mailboxes[mailbox] else { return [] }
            return Array(box.messages.values.filter { $0.messageID > after && $0.expiresAt > now }
                .sorted { $0.messageID < $1.messageID }.prefix(limit))
        }
    }

    public func acknowledge(mailbox: [UInt8], messageIDs: [UInt64]) async throws -> Int {
        state.withLock { state in
            guard var box = state.mailboxes.removeValue(forKey: mailbox) else { return 0 }
            defer { state.mailboxes[mailbox] = box }
            var deleted = 0
            for id in Set(messageIDs) {
                if let removed = box.messages.removeValue(forKey: id) {
                    box.bytes -= removed.envelope.count
                    deleted += 1
                }
            }
            return deleted
        }
    }

    public func recordBlob(id: String, size: Int, uploader: [UInt8], quota: BlobQuota, createdAt: Int64, expiresAt: Int64) async throws {
        try state.withLock { state in
            try quota.check(adding: size, to: Self.blobUsage(uploader: uploader, now: createdAt, in: state))
            state.blobs[id] = BlobRecord(id: id, size: size, createdAt: createdAt, expiresAt: expiresAt, uploader: uploader)
        }
    }

    public func blobUsage(uploader: [UInt8], now: Int64) async throws -> BlobUsage {
        state.withLock { Self.blobUsage(uploader: uploader, now: now, in: $0) }
    }

    public func totalBlobUsage(now: Int64) async throws -> BlobUsage {
        state.withLock { state in
            let live = state.blobs.values.filter { $0.expiresAt > now }
            return BlobUsage(count: live.count, bytes: live.reduce(0) { $0 + $1.size })
        }
    }

    private static func blobUsage(uploader: [UInt8], now: Int64, in state: State) -> BlobUsage {
        let mine = state.blobs.values.filter { $0.uploader == uploader && $0.expiresAt > now }
        return BlobUsage(count: mine.count, bytes: mine.reduce(0) { $0 + $1.size })
    }

    public func blob(id: String, now: Int64) async throws -> BlobRecord? {
        state.withLock { state in
            guard let record = state.blobs[id], record.expiresAt > now else { return nil }
            return record
        }
    }

    public func deleteBlob(id: String, uploader: [UInt8], now: Int64) async throws -> Bool {
        state.withLock { state in
            guard let record = state.blobs[id], record.expiresAt > now, record.uploader == uploader else { return false }
            state.blobs.removeValue(forKey: id)
            return true
        }
    }

    public func sweep(now: Int64) async throws -> SweepResult {
        state.withLock { state in
            var result = SweepResult()
            for key in Array(state.mailboxes.keys) {
                var box = state.mailboxes[key]!
                for (id, message) in box.messages where message.expiresAt <= now {
                    box.messages.removeValue(forKey: id)
                    box.bytes -= message.envelope.count
                    result.envelopes += 1
                }
                for (requestID, record) in box.deposits where record.expiresAt <= now {
                    box.deposits.removeValue(forKey: requestID)
                    result.depositRecords += 1
                }
                state.mailboxes[key] = box
            }
            let challenges = state.challenges.count
            state.challenges = state.challenges.filter { $0.value.expiresAt > now }
            result.challenges = challenges - state.challenges.count
            let tokens = state.tokens.count
            state.tokens = state.tokens.filter { $0.value.expiresAt > now }
            result.tokens = tokens - state.tokens.count
            result.expiredBlobIDs = state.blobs.values.filter { $0.expiresAt <= now }.map(\.id).sorted()
            for id in result.expiredBlobIDs { state.blobs.removeValue(forKey: id) }
            let directories = state.directories.count
            state.directories = state.directories.filter { $0.value.writtenAt > now - RelayLimits.directoryLifetimeSeconds * 1000 }
            result.directories = directories - state.directories.count
            return result
        }
    }

    public func inventory() async throws -> RelayInventory {
        state.withLock { state in
            var inventory = RelayInventory()
            for (identity, entry) in state.identities.sorted(by: { $0.key.lexicographicallyPrecedes($1.key) }) {
                inventory.identities.append(.init(
                    identity: identity, registeredAt: entry.registeredAt, signedPrekeyID: entry.signedPrekey.id,
                    lastResortKEMPrekeyID: entry.lastResortKEMPrekey.id, oneTimeX25519: entry.oneTimeX25519.count,
                    oneTimeKEM: entry.oneTimeKEM.count, credentials: state.mailboxes[identity]?.credentials.count ?? 0))
            }
            for (mailbox, box) in state.mailboxes {
                inventory.depositRecords += box.deposits.count
                for message in box.messages.values {
                    inventory.messages.append(.init(mailbox: mailbox, messageID: message.messageID, timestamp: message.timestamp,
                                                    expiresAt: message.expiresAt, size: message.envelope.count))
                }
            }
            inventory.messages.sort { $0.messageID < $1.messageID }
            inventory.challenges = state.challenges.count
            inventory.tokens = state.tokens.count
            inventory.blobs = state.blobs.values.sorted { $0.id < $1.id }
            inventory.directories = state.directories.values.sorted { $0.name.lexicographicallyPrecedes($1.name) }.map {
                RelayInventory.Directory(name: $0.name, counter: $0.counter, size: $0.record.count, writtenAt: $0.writtenAt)
            }
            return inventory
        }
    }

    public func writeDirectory(name: [UInt8], counter: UInt64, record: [UInt8], now: Int64) async throws -> DirectoryWrite {
        try state.withLock { state in
            let held = state.directories[name].map { (counter: $0.counter, record: $0.record) }
            let write = try DirectoryWrite.deciding(held: held, counter: counter, record: record)
            state.directories[name] = DirectoryRecord(name: name, counter: counter, record: record, writtenAt: now)
            return write
        }
    }

    public func directory(name: [UInt8]) async throws -> DirectoryRecord? {
        state.withLock { $0.directories[name] }
    }
}
