import HushCrypto

/// The skipped-key store in memory, bounded by `RatchetLimits`. Linear scans
/// are fine: at most `maxSkippedKeysTotal` entries exist.
public final class InMemorySkippedMessageKeyStore: SkippedMessageKeyStore, @unchecked Sendable {
    // Oldest first. Not thread-safe: one session, one caller at a time.
    private var entries: [SkippedMessageKey] = []

    public init() {}

    /// A store holding `keys` (oldest first), e.g. loaded from a database.
    public init(keys: [SkippedMessageKey]) {
        entries = keys
    }

    /// Every stored key, oldest first (to persist the set).
    public func allKeys() -> [SkippedMessageKey] { entries }

    public func headerKeys() -> [SecureBytes] {
        var keys: [SecureBytes] = []
        for entry in entries.reversed() where !keys.contains(where: { $0 == entry.headerKey }) {
            keys.append(entry.headerKey)
        }
        return keys
    }

    public func messageKey(headerKey: SecureBytes, counter: UInt32) -> SecureBytes? {
        entries.first { $0.counter == counter && $0.headerKey == headerKey }?.messageKey
    }

    public func remove(headerKey: SecureBytes, counter: UInt32) {
        entries.removeAll { $0.counter == counter && $0.headerKey == headerKey }
    }

    public func insert(_ keys: [SkippedMessageKey]) {
        entries.append(contentsOf: keys)
        for headerKey in Set(keys.map { ObjectIdentifier($0.headerKey) }).compactMap({ id in keys.first { ObjectIdentifier($0.headerKey) == id }?.headerKey }) {
            let inChain = entries.indices.filter { entries[$0].headerKey == headerKey }
            if inChain.count > RatchetLimits.maxSkippedKeysPerChain {
                let drop = Set(inChain.prefix(inChain.count - RatchetLimits.maxSkippedKeysPerChain))
                entries = entries.enumerated().filter { !drop.contains($0.offset) }.map(\.element)
            }
        }
        if entries.count > RatchetLimits.maxSkippedKeysTotal {
            entries.removeFirst(entries.count - RatchetLimits.maxSkippedKeysTotal)
        }
        let chains = headerKeys()
        if chains.count > RatchetLimits.maxSkippedChains {
            let dropped = chains[RatchetLimits.maxSkippedChains...]
            entries.removeAll { entry in dropped.contains { $0 == entry.headerKey } }
        }
    }

    public func count() -> Int { entries.count }
}
