import Testing
import HushCrypto
import HushStore

@Suite struct ProtocolStateTests {
    @Test func sessionStateRoundTripsAndIsReplaced() throws {
        let fixture = try StoreFixture()
        let contact = try fixture.store.contacts.add(name: "s", address: "a", identityKey: [1], at: 1)
        #expect(try fixture.store.sessions.load(contactId: contact.id) == nil)
        try fixture.store.sessions.save(state: SecureBytes(copying: [1, 2, 3]), contactId: contact.id, at: 1)
        try fixture.store.sessions.save(state: SecureBytes(copying: [4, 5]), contactId: contact.id, at: 2)
        #expect(try fixture.store.sessions.load(contactId: contact.id) == SecureBytes(copying: [4, 5]))
    }

    @Test func skippedKeysOpenOnceAndAreBounded() throws {
        let fixture = try StoreFixture()
        let contact = try fixture.store.contacts.add(name: "k", address: "a", identityKey: [1], at: 1)
        let ratchet: [UInt8] = Array(repeating: 9, count: 32)
        for counter in 0..<10 {
            try fixture.store.skippedKeys.store(messageKey: SecureBytes(copying: [UInt8(counter)]), owner: contact.id,
                                                ratchetKey: ratchet, counter: Int64(counter), at: Int64(counter))
        }
        #expect(try fixture.store.skippedKeys.take(owner: contact.id, ratchetKey: ratchet, counter: 3) == SecureBytes(copying: [3]))
        #expect(try fixture.store.skippedKeys.take(owner: contact.id, ratchetKey: ratchet, counter: 3) == nil)
        try fixture.store.skippedKeys.trim(owner: contact.id, keepingNewest: 4)
        #expect(try fixture.store.skippedKeys.count(owner: contact.id) == 4)
        #expect(try fixture.store.skippedKeys.take(owner: contact.id, ratchetKey: ratchet, counter: 0) == nil)
        #expect(try fixture.store.skippedKeys.take(owner: contact.id, ratchetKey: ratchet, counter: 9) != nil)
    }

    @Test func prekeysAndIdentityChanges() throws {
        let fixture = try StoreFixture()
        try fixture.store.prekeys.save(kind: "one-time", id: 1, privateKey: SecureBytes(copying: [1]), publicKey: [2], at: 1)
        try fixture.store.prekeys.save(kind: "one-time", id: 2, privateKey: SecureBytes(copying: [3]), publicKey: [4], at: 1)
        try fixture.store.prekeys.markUsed(kind: "one-time", id: 1, at: 5)
        #expect(try fixture.store.prekeys.unusedCount(kind: "one-time") == 1)
        #expect(try fixture.store.prekeys.highestId(kind: "one-time") == 2)
        #expect(try fixture.store.prekeys.prekey(kind: "one-time", id: 2)?.privateKey == SecureBytes(copying: [3]))

        let contact = try fixture.store.contacts.add(name: "ivy", address: "a", identityKey: [1], at: 1)
        try fixture.store.contacts.setVerification(.verified, contactId: contact.id)
        try fixture.store.contacts.recordChangedIdentityKey([2], contactId: contact.id)
        #expect(try fixture.store.contacts.contact(named: "ivy")?.verification == .changed)
        try fixture.store.contacts.acceptPendingIdentityKey(contactId: contact.id)
        let accepted = try #require(try fixture.store.contacts.contact(id: contact.id))
        #expect(accepted.identityKey == [2] && accepted.pendingIdentityKey == nil && accepted.verification == .unverified)
        #expect(throws: (any Error).self) {
            _ = try fixture.store.contacts.add(name: "ivy", address: "b", identityKey: [3], at: 2)
        }
    }

    @Test func settingsSyncCursorAndQuarantine() throws {
        let fixture = try StoreFixture()
        try fixture.store.settings.set(SettingsRepository.Name.relayURL, to: "http://127.0.0.1:8080")
        #expect(try fixture.store.settings.value(SettingsRepository.Name.relayURL) == "http://127.0.0.1:8080")
        try fixture.store.settings.advanceSyncCursor(to: 10)
        try fixture.store.settings.advanceSyncCursor(to: 4)
        #expect(try fixture.store.settings.syncCursor() == 10)
        try fixture.store.quarantine.add(serverId: 3, envelope: [0xde, 0xad], reason: "authentication failed", at: 7)
        #expect(try fixture.store.quarantine.all().map(\.envelope) == [[0xde, 0xad]])
    }
}
