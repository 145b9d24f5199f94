import Testing
import HushCrypto
import HushStore
import HushTesting

/// The account's device lists as the store keeps them (schema version 29):
/// by counter, the latest on top, never two lists under one counter.
@Suite struct DeviceListRepositoryTests {
    @Test func listsAreKeptByCounterAndNeverReplaced() throws {
        let fixture = try StoreFixture()
        let store = fixture.store
        #expect(try store.deviceLists.latest() == nil)
        try store.deviceLists.keep([1, 1, 1], counter: 1, at: 10)
        try store.deviceLists.keep([2, 2], counter: 2, at: 11)
        #expect(try store.deviceLists.latest() == [2, 2])
        #expect(try store.deviceLists.list(counter: 1) == [1, 1, 1])
        // The same list again is nothing new; another under a kept counter is refused.
        try store.deviceLists.keep([2, 2], counter: 2, at: 12)
        #expect(throws: StoreError.self) { try store.deviceLists.keep([9], counter: 2, at: 13) }
        #expect(throws: StoreError.self) { try store.deviceLists.keep([9], counter: 0, at: 13) }
        #expect(try store.deviceLists.latest() == [2, 2])
    }

    /// The recovery key a revocation made (§20.14): the higher list counter wins, whatever the
    /// order keys arrive in, so a device that lagged cannot hand back an older key.
    @Test func theRecoveryKeyOfTheLaterRevocationWins() throws {
        let store = try StoreFixture().store
        #expect(try store.recoveryKeys.current() == nil)
        let second = SecureBytes(copying: [UInt8](repeating: 2, count: 32)), first = SecureBytes(copying: [UInt8](repeating: 1, count: 32))
        #expect(try store.recoveryKeys.keepIfNewer(second, listCounter: 3))
        #expect(try !store.recoveryKeys.keepIfNewer(first, listCounter: 2))
        #expect(try !store.recoveryKeys.keepIfNewer(first, listCounter: 3))
        var kept = try #require(try store.recoveryKeys.current())
        #expect(kept.listCounter == 3 && kept.key.copyBytes() == second.copyBytes())
        #expect(try store.recoveryKeys.keepIfNewer(first, listCounter: 4))
        kept = try #require(try store.recoveryKeys.current())
        #expect(kept.listCounter == 4 && kept.key.copyBytes() == first.copyBytes())
        // A counter no list can have, or a key of another length, is refused.
        #expect(throws: StoreError.self) { try store.recoveryKeys.keepIfNewer(first, listCounter: 0) }
        #expect(throws: StoreError.self) { try store.recoveryKeys.keepIfNewer(SecureBytes(copying: [1, 2]), listCounter: 9) }
    }
}
