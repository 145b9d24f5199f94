import HushCrypto
import HushProtocol
import HushStore

/// The skipped message keys of one session, as the protocol's skipped-key
/// store, kept in the database and changed there as the ratchet asks: the
/// keys a message skips are inserted, the key that opened it is deleted.
/// Every change joins the caller's transaction, the one that stores the
/// message and the advanced ratchet state, so a crash keeps all of them or
/// none (a message key is never lost nor used twice), and a decryption that
/// fails rolls them back with it. Nothing else of the set is read or written
/// again, so a message costs the same however many keys are kept.
final class PersistentSkippedKeys: SkippedMessageKeyStore {
    private let keys: SkippedKeyRepository
    private let owner: Int64
    private let now: Int64

    /// The skipped keys of a contact's sessions.
    convenience init(store: MessageStore, contactId: Int64, now: Int64) throws {
        try self.init(keys: store.skippedKeys, owner: contactId, now: now)
    }

    /// The skipped keys of `owner` in `keys` (a contact's, or a session's with one of our own devices).
    init(keys: SkippedKeyRepository, owner: Int64, now: Int64) throws {
        self.keys = keys
        self.owner = owner
        self.now = now
        // The age bound (RatchetLimits.maxSkippedKeyAgeSeconds), applied before
        // every use so an expired key never opens anything.
        try keys.deleteOlder(than: now - RatchetLimits.maxSkippedKeyAgeSeconds * 1000, owner: owner)
    }

    func headerKeys() throws -> [SecureBytes] {
        try keys.headerKeys(owner: owner)
    }

    func messageKey(headerKey: SecureBytes, counter: UInt32) throws -> SecureBytes? {
        var chain = headerKey.copyBytes()
        defer { ConstantTime.wipe(&chain) }
        return try keys.messageKey(owner: owner, ratchetKey: chain, counter: Int64(counter))
    }

    func remove(headerKey: SecureBytes, counter: UInt32) throws {
        var chain = headerKey.copyBytes()
        defer { ConstantTime.wipe(&chain) }
        try keys.delete(owner: owner, ratchetKey: chain, counter: Int64(counter))
    }

    /// Stores `keys` (oldest first), then evicts as `InMemorySkippedMessageKeyStore`
    /// does: per chain, in all, and whole chains, oldest first.
    func insert(_ skipped: [SkippedMessageKey]) throws {
        guard !skipped.isEmpty else { return }
        var chains: [[UInt8]] = []
        defer { for index in chains.indices { ConstantTime.wipe(&chains[index]) } }
        for key in skipped {
            var chain = key.headerKey.copyBytes()
            defer { ConstantTime.wipe(&chain) }
            try keys.store(messageKey: key.messageKey, owner: owner, ratchetKey: chain, counter: Int64(key.counter),
                                        at: now)
            if !chains.contains(chain) { chains.append(chain) }
        }
        try keys.evict(owner: owner, touchedChains: chains, perChain: RatchetLimits.maxSkippedKeysPerChain,
                                    total: RatchetLimits.maxSkippedKeysTotal, chains: RatchetLimits.maxSkippedChains)
    }

    func count() throws -> Int {
        try keys.count(owner: owner)
    }
}
