import Testing
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
}
