import Testing
import HushMessenger

/// The 401 rule, which lives in RelaySession only: a call the relay answers
/// with 401 is retried once after logging in again; a second 401 in the same
/// run is final.
@Suite struct RelaySessionTests {
    @Test func aSecond401InOneRunIsFinal() async throws {
        let relay = InMemoryRelay()
        let (alice, bob) = try await relay.pair()
        try await alice.messenger.send(text: "one", to: "bob")
        #expect(try await bob.messenger.sync().received == 2)  // (and the delivery credential the first message hands over, PROTOCOL §11)
        relay.expireTokens()
        let before = relay.state.withLock { $0.authentications }
        _ = try await bob.messenger.sync()
        #expect(relay.state.withLock { $0.authentications } == before + 1)
        relay.expireTokens()
        await #expect(throws: MessengerError.relay(.unauthorized)) { try await bob.messenger.sync() }
        #expect(relay.state.withLock { $0.authentications } == before + 1)
    }

    @Test func depositsNeedNoLogin() async throws {
        let relay = InMemoryRelay()
        let (alice, _) = try await relay.pair()
        let before = relay.state.withLock { $0.authentications }
        relay.expireTokens()
        // Sealed sender: a deposit carries no token, so sending logs in nowhere.
        let sent = try await alice.messenger.send(text: "anonymous", to: "bob")
        #expect(sent.status == .sent)
        #expect(relay.state.withLock { $0.authentications } == before)
    }
}
