import HushCrypto
import HushDatabase

/// The chains of a contact's skipped keys: which header keys have any, and
/// the bounds on them. A chain's age is the store order (`id`) of its oldest
/// key still kept: what a set loaded oldest first into the protocol's
/// in-memory store would give, so the same keys go first.
extension SkippedKeyRepository {
    /// The distinct header keys with stored message keys, newest chain first.
    public func headerKeys(owner: Int64) throws -> [SecureBytes] {
        var chains = try chainsOldestFirst(owner: owner)
        defer { for index in chains.indices { ConstantTime.wipe(&chains[index]) } }
        return chains.reversed().map { SecureBytes(copying: $0) }
    }

    /// Applies the bounds after keys were stored, oldest first, as the
    /// protocol's skipped-key store does on insert: no chain among
    /// `touchedChains` keeps more than `perChain` keys, the contact keeps at
    /// most `total`, then whole chains go, oldest first, until at most
    /// `chains` remain. Chains are aged before anything goes, so a chain
    /// that only lost its oldest keys here does not change place.
    public func evict(owner: Int64, touchedChains: [[UInt8]], perChain: Int, total: Int, chains: Int) throws {
        try database.withinTransaction { db in
            let order = try chainsOldestFirst(owner: owner)
            for chain in touchedChains {
                try db.execute("""
                    DELETE FROM \(table) WHERE \(ownerColumn) = ? AND ratchet_key = ? AND id NOT IN (
                        SELECT id FROM \(table) WHERE \(ownerColumn) = ? AND ratchet_key = ? ORDER BY id DESC LIMIT ?)
                    """, [owner, chain, owner, chain, perChain])
            }
            try trim(owner: owner, keepingNewest: total)
            let remaining = Set(try chainsOldestFirst(owner: owner))
            let kept = order.filter(remaining.contains)
            for chain in kept.prefix(max(0, kept.count - chains)) {
                try db.execute("DELETE FROM \(table) WHERE \(ownerColumn) = ? AND ratchet_key = ?", [owner, chain])
            }
        }
    }

    private func chainsOldestFirst(owner: Int64) throws -> [[UInt8]] {
        try database.query("""
            SELECT ratchet_key FROM \(table) WHERE \(ownerColumn) = ? GROUP BY ratchet_key ORDER BY min(id)
            """, [owner]) { try $0.get(0, as: [UInt8].self) }
    }
}
