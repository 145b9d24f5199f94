import HushCrypto

/// The skipped-key store in memory, bounded by `RatchetLimits`. Keys are
/// grouped by chain (header key), so a lookup compares at most
/// `maxSkippedChains` header keys and then scans one chain.
public final class InMemorySkippedMessageKeyStore: SkippedMessageKeyStore, @unchecked Sendable {
    private struct Entry {
        let counter: UInt32
        let messageKey: SecureBytes
        /// Insertion order across the whole store, for oldest-first eviction.
        let sequence: UInt64
    }

    private struct Chain {
        let headerKey: SecureBytes
        var entries: [Entry]
    }

    // Oldest chain first. Not thread-safe: one session, one caller at a time.
    private var chains: [Chain] = []
    private var nextSequence: UInt64 = 0

    public init() {}

    /// A store holding `keys` (oldest first), e.g. loaded from a database.
    public convenience init(keys: [SkippedMessageKey]) {
        self.init()
        insert(keys)
    }

    /// Every stored key, oldest first.
    public func allKeys() -> [SkippedMessageKey] {
        chains.flatMap { chain in chain.entries.map { (chain.headerKey, $0) } }
            .sorted { $0.1.sequence < $1.1.sequence }
            .map { SkippedMessageKey(headerKey: $0.0, counter: $0.1.counter, messageKey: $0.1.messageKey) }
    }

    public func headerKeys() -> [SecureBytes] {
        chains.reversed().map(\.headerKey)
    }

    private func chainIndex(_ headerKey: SecureBytes) -> Int? {
        chains.firstIndex { $0.headerKey === headerKey || $0.headerKey == headerKey }
    }

    public func messageKey(headerKey: SecureBytes, counter: UInt32) -> SecureBytes? {
        guard let index = chainIndex(headerKey) else { return nil }
        return chains[index].entries.first { $0.counter == counter }?.messageKey
    }

    public func remove(headerKey: SecureBytes, counter: UInt32) {
        guard let index = chainIndex(headerKey) else { return }
        chains[index].entries.removeAll { $0.counter == counter }
        if chains[index].entries.isEmpty { chains.remove(at: index) }
    }

    public func insert(_ keys: [SkippedMessageKey]) {
        for key in keys {
            let index: Int
            if let existing = chainIndex(key.headerKey) {
                index = existing
            } else {
                chains.append(Chain(headerKey: key.headerKey, entries: []))
                index = chains.count - 1
            }
            chains[index].entries.append(Entry(counter: key.counter, messageKey: key.messageKey, sequence: nextSequence))
            nextSequence += 1
            let excess = chains[index].entries.count - RatchetLimits.maxSkippedKeysPerChain
            if excess > 0 { chains[index].entries.removeFirst(excess) }
        }
        var total = count()
        while total > RatchetLimits.maxSkippedKeysTotal {
            total -= 1
            // The chain whose oldest entry is the oldest overall loses it.
            guard let oldest = chains.indices.min(by: { chains[$0].entries[0].sequence < chains[$1].entries[0].sequence }) else { break }
            chains[oldest].entries.removeFirst()
            if chains[oldest].entries.isEmpty { chains.remove(at: oldest) }
        }
        if chains.count > RatchetLimits.maxSkippedChains {
            chains.removeFirst(chains.count - RatchetLimits.maxSkippedChains)
        }
    }

    public func count() -> Int { chains.reduce(0) { $0 + $1.entries.count } }
}
