import Foundation
import Synchronization

/// How much work a first-contact deposit to a mailbox must carry now. It
/// starts at `baseBits` and rises by two bits (four times the work) each time
/// the mailbox's recent first contacts double past four, so a flood makes
/// itself ever more expensive while a newcomer pays a fraction of a second
/// in the quiet case. Recent counts decay with a half-life of ten minutes.
final class FirstContactDifficulty: Sendable {
    static let halfLifeMilliseconds = 600_000.0
    static let maxBits = 30

    let baseBits: Int
    private let recent = Mutex<[String: (count: Double, updated: Int64)]>([:])

    init(baseBits: Int) { self.baseBits = baseBits }

    func bits(for mailbox: String, now: Int64) -> Int {
        guard baseBits > 0 else { return 0 }  // work turned off
        let count = recent.withLock { $0[mailbox].map { Self.decayed($0, now: now) } ?? 0 }
        return min(Self.maxBits, baseBits + 2 * Int(log2(1 + count / 4)))
    }

    /// Counts an admitted first contact.
    func record(_ mailbox: String, now: Int64) {
        recent.withLock { table in
            let count = table[mailbox].map { Self.decayed($0, now: now) } ?? 0
            table[mailbox] = (count + 1, now)
            // Forget mailboxes whose count has decayed to nothing, now and then.
            if table.count > 10_000 { table = table.filter { Self.decayed($0.value, now: now) >= 0.5 } }
        }
    }

    private static func decayed(_ entry: (count: Double, updated: Int64), now: Int64) -> Double {
        entry.count * pow(0.5, Double(max(0, now - entry.updated)) / halfLifeMilliseconds)
    }
}
