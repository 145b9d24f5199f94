import Foundation

/// SplitMix64: a seeded generator, so a soak run that finds a loss can be
/// replayed with the seed it printed (`HUSH_SOAK_SEED`).
struct SoakRandom: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// True with probability `p`.
    mutating func chance(_ p: Double) -> Bool { Double.random(in: 0..<1, using: &self) < p }
}

/// The soak's size and seed: `HUSH_SOAK_MESSAGES` (messages in all, both
/// ways; `make soak` sets it) and `HUSH_SOAK_SEED`.
struct SoakSettings {
    let messages: Int
    let seed: UInt64

    static func fromEnvironment(defaultMessages: Int) -> SoakSettings {
        let environment = ProcessInfo.processInfo.environment
        let messages = environment["HUSH_SOAK_MESSAGES"].flatMap { Int($0) }.map { max(2, $0) } ?? defaultMessages
        let seed = environment["HUSH_SOAK_SEED"].flatMap { UInt64($0) } ?? UInt64.random(in: 1...UInt64(UInt32.max))
        return SoakSettings(messages: messages, seed: seed)
    }
}
