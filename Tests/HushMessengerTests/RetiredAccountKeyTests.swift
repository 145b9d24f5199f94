import HushCrypto
import HushMessenger
import HushProtocol
import HushStore
import HushTesting
import Testing

/// What a contact queued for an account key before the list that retires
/// it arrived (docs/PROTOCOL.md §20.14): sealed on the account key's
/// session, it would still reach the revoked first device. The copy queued
/// for the account's remaining device carries the message instead, and
/// nothing more goes to the account key.
@Suite struct RetiredAccountKeyTests {
    @Test func aMessageQueuedForTheAccountKeyGoesToTheRemainingDeviceOnceTheKeyIsRetired() async throws {
        let setup = try await InMemoryRelay().linkedAlice("desk starts")
        let (desk, bob, tablet) = (setup.alice.messenger, setup.bob.messenger, setup.tablet)
        let deskMailbox = setup.alice.identity.publicKey

        // Bob writes while the relay cannot take it: it waits (backoff), sealed on the account key's session.
        setup.relay.state.withLock { $0.depositFailures = Array(repeating: .unavailable(reason: "offline"), count: 4) }
        let queued = try await bob.send(text: "queued for alice", to: "alice")
        // A timer change too: a message that cannot be sealed again (its copy for the tablet carries it).
        let timer = try await bob.setDisappearingTimer(3_600, for: "alice")
        setup.relay.state.withLock { $0.depositFailures = [] }
        #expect(queued.status == .pending && timer.status == .pending)

        // The tablet revokes the desk; bob takes the list at his next sync, before his queued message is due.
        let tabletStore = try setup.tabletStore()
        try tabletStore.deviceLists.keep(setup.devices.retiringDesk.encoded, counter: 3, at: 3)
        try await tablet.announceDeviceList()
        let atDeskBefore = setup.relay.stored(for: deskMailbox).count
        _ = try await bob.sync()
        setup.bob.clock.advance(milliseconds: 600_000)
        _ = try await bob.sync()
        #expect(setup.relay.stored(for: deskMailbox).count == atDeskBefore, "nothing more reached the account key's mailbox")
        #expect(try await bob.history(with: "alice").first { $0.id == queued.id }?.status == .sent)
        #expect(try await bob.history(with: "alice").first { $0.id == timer.id }?.status == .sent)
        // Nothing is left for the account key, so a retry posts nothing there either.
        _ = try await bob.retry(requestID: nil)
        #expect(setup.relay.stored(for: deskMailbox).count == atDeskBefore)

        _ = try? await desk.sync()
        #expect(try await !desk.history(with: "bob").contains { $0.body == "queued for alice" })
        // And what bob writes next goes to the tablet alone.
        let atDesk = setup.relay.stored(for: deskMailbox).count
        let after = try await bob.send(text: "after", to: "alice")
        #expect(after.status == .sent, "\(after.status)")
        #expect(setup.relay.stored(for: deskMailbox).count == atDesk)
        // (A copy that crossed a session the tablet replaced is asked for again and resent: two rounds.)
        for _ in 0..<2 {
            _ = try await tablet.sync()
            setup.bob.clock.advance(milliseconds: 600_000)
            _ = try await bob.sync()
        }
        _ = try await tablet.sync()
        let onTablet = try await tablet.history(with: "bob").map(\.body)
        #expect(onTablet.filter { $0 == "after" }.count == 1 && onTablet.filter { $0 == "queued for alice" }.count == 1, "\(onTablet)")
        #expect(setup.relay.stored(for: deskMailbox).count == atDesk, "nothing reached the account key's mailbox")
    }
}
