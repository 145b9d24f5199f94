import HushCrypto
import HushProtocol
import HushStore

/// The skipped message keys of one session, loaded from the store into the
/// protocol's in-memory store for one decryption and written back (inside
/// the same transaction) only when that decryption succeeded. The protocol
/// bounds the set (RatchetLimits), so the rewrite stays small.
struct PersistentSkippedKeys {
    let store: MessageStore
    let contactId: Int64
    let memory: InMemorySkippedMessageKeyStore
    private let loadedCount: Int

    init(store: MessageStore, contactId: Int64, now: Int64) throws {
        self.store = store
        self.contactId = contactId
        // The age bound (RatchetLimits.maxSkippedKeyAgeSeconds), applied before
        // every use so an expired key never opens anything.
        try store.skippedKeys.deleteOlder(than: now - RatchetLimits.maxSkippedKeyAgeSeconds * 1000, contactId: contactId)
        let stored = try store.skippedKeys.all(contactId: contactId)
        memory = InMemorySkippedMessageKeyStore(keys: stored.map {
            SkippedMessageKey(headerKey: SecureBytes(copying: $0.headerKey), counter: UInt32(clamping: $0.counter), messageKey: $0.messageKey)
        })
        loadedCount = stored.count
    }

    /// Replaces the stored set with the current one, when anything changed.
    func persist(at time: Int64) throws {
        let current = memory.allKeys()
        guard !(current.isEmpty && loadedCount == 0) else { return }
        try store.skippedKeys.replaceAll(contactId: contactId, with: current.map {
            (headerKey: $0.headerKey.copyBytes(), counter: Int64($0.counter), messageKey: $0.messageKey)
        }, at: time)
    }
}
