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
    private let store: MessageStore
    private let contactId: Int64
    private let now: Int64

    init(store: MessageStore, contactId: Int64, now: Int64) throws {
        self.store = store
        self.contactId = contactId
        self.now = now
        // The age bound (RatchetLimits.maxSkippedKeyAgeSeconds), applied before
        // every use so an expired key never opens anything.
        try store.skippedKeys.deleteOlder(than: now - RatchetLimits.maxSkippedKeyAgeSeconds * 1000, contactId: contactId)
    }

    func headerKeys() throws -> [SecureBytes] {
        try store.skippedKeys.headerKeys(contactId: contactId)
    }

    func messageKey(headerKey: SecureBytes, counter: UInt32) throws -> SecureBytes? {
        var chain = headerKey.copyBytes()
        defer { ConstantTime.wipe(&chain) }
        return try store.skippedKeys.messageKey(contactId: contactId, ratchetKey: chain, counter: Int64(counter))
    }

    func remove(headerKey: SecureBytes, counter: UInt32) throws {
        var chain = headerKey.copyBytes()
        defer { ConstantTime.wipe(&chain) }
        try store.skippedKeys.delete(contactId: contactId, ratchetKey: chain, counter: Int64(counter))
    }

    /// Stores `keys` (oldest first), then evicts as `InMemorySkippedMessageKeyStore`
    /// does: per chain, in all, and whole chains, oldest first.
    func insert(_ keys: [SkippedMessageKey]) throws {
        guard !keys.isEmpty else { return }
        var chains: [[UInt8]] = []
        defer { for index in chains.indices { ConstantTime.wipe(&chains[index]) } }
        for key in keys {
            var chain = key.headerKey.copyBytes()
            defer { ConstantTime.wipe(&chain) }
            try store.skippedKeys.store(messageKey: key.messageKey, contactId: contactId, ratchetKey: chain, counter: Int64(key.counter),
                                        at: now)
            if !chains.contains(chain) { chains.append(chain) }
        }
        try store.skippedKeys.evict(contactId: contactId, touchedChains: chains, perChain: RatchetLimits.maxSkippedKeysPerChain,
                                    total: RatchetLimits.maxSkippedKeysTotal, chains: RatchetLimits.maxSkippedChains)
    }

    func count() throws -> Int {
        try store.skippedKeys.count(contactId: contactId)
    }
}
