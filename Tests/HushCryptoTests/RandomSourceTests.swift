import HushTesting
import Testing
import HushCrypto

@Suite struct RandomSourceTests {
    @Test func sameSeedGivesTheSameBytes() {
        let a = DeterministicRandom(seed: "seed")
        let b = DeterministicRandom(seed: "seed")
        #expect(a.bytes(64) == b.bytes(64))
        #expect(a.bytes(7) == b.bytes(7))
    }

    @Test func successiveCallsDiffer() {
        let random = DeterministicRandom(seed: "seed")
        let first = random.bytes(32)
        let second = random.bytes(32)
        #expect(first != second)
        // A longer draw does not start with an earlier one either.
        #expect(Array(random.bytes(64).prefix(32)) != first)
    }

    @Test func differentSeedsDiffer() {
        #expect(DeterministicRandom(seed: "a").bytes(32) != DeterministicRandom(seed: "b").bytes(32))
        #expect(DeterministicRandom(seed: [UInt8]()).bytes(32) != DeterministicRandom(seed: [0] as [UInt8]).bytes(32))
    }

    @Test func uniformStaysBelowTheBound() {
        let random = DeterministicRandom(seed: "uniform")
        var seen = Set<UInt32>()
        for _ in 0..<200 {
            let value = random.uniform(6)
            #expect(value < 6)
            seen.insert(value)
        }
        #expect(seen.count == 6)
        #expect(random.uniform(1) == 0)
    }

    @Test func systemRandomFillsAndDiffers() {
        let system = SystemRandom()
        #expect(system.bytes(32) != system.bytes(32))
        #expect(system.bytes(0).isEmpty)
    }
}
