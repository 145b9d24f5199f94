import Testing
import HushStore
import HushTesting

/// A group that arrives named as one we have gets the first free name after it.
@Suite struct GroupNameTests {
    @Test func aTakenNameGetsTheFirstFreeSuffix() throws {
        let store = try StoreFixture().store
        #expect(try store.groups.freeName("team") == "team")
        _ = try store.groups.create(groupID: [UInt8](repeating: 1, count: 16), name: "team", state: [1], epoch: 1, at: 1)
        #expect(try store.groups.freeName("team") == "team-2")
        _ = try store.groups.create(groupID: [UInt8](repeating: 2, count: 16), name: "team-2", state: [1], epoch: 1, large: true, at: 2)
        #expect(try store.groups.freeName("team") == "team-3")
        #expect(try store.groups.freeName("team-2") == "team-2-2")
        #expect(try store.groups.freeName("other") == "other")
    }
}
