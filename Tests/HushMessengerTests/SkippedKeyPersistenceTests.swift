import Testing
import HushCrypto
import HushProtocol
import HushStore
import HushTesting
@testable import HushMessenger

/// Skipped message keys live in the database and change there, one message
/// at a time (`PersistentSkippedKeys`): what one run skipped opens its
/// message in the next, once, and the bounds drop the same keys the
/// protocol's in-memory store drops.
@Suite struct SkippedKeyPersistenceTests {
    @Test func messagesOutOfOrderOpenOnceAcrossAReopen() async throws {
        let relay = InMemoryRelay()
        let (alice, bob) = try await relay.acquaintedPair()
        let texts = (0..<6).map { "m\($0)" }
        for text in texts { try await alice.messenger.send(text: text, to: "bob") }
        let mailbox = bob.identity.publicKey
        let queued = relay.state.withLock { state in
            defer { state.mailboxes[mailbox.rawRepresentation] = [] }
            return state.mailboxes[mailbox.rawRepresentation] ?? []
        }
        try #require(queued.count >= texts.count)
        // Whatever Alice sealed before the six goes first, in order.
        let earlier = queued.dropLast(texts.count), sent = Array(queued.suffix(texts.count))
        for envelope in earlier { relay.inject(envelope.bytes, into: mailbox) }

        // The last and a middle one first: the keys of the others are skipped.
        relay.inject(sent[5].bytes, into: mailbox)
        relay.inject(sent[2].bytes, into: mailbox)
        #expect(try await bob.messenger.sync().received >= 2)
        #expect(try await incoming(bob.messenger) == ["hello", "m2", "m5"])

        // A new process: only what was committed carries over.
        let reopened = try bob.reopened(relay: relay)
        for index in [0, 4, 1, 3] { relay.inject(sent[index].bytes, into: mailbox) }
        relay.inject(sent[2].bytes, into: mailbox)  // a replay of one already opened
        let report = try await reopened.sync()
        #expect(report.received == 4, "\(report)")
        #expect(report.quarantined + report.resendRequested == 1, "\(report)")
        #expect(try await incoming(reopened) == ["hello"] + texts)
        let contact = try #require(try await reopened.contacts().first { $0.name == "alice" })
        let store = try MessageStore(path: bob.databasePath, key: bob.databaseKey)
        #expect(try store.skippedKeys.count(owner: contact.id) == 0)
    }

    /// Inserts and removals, each through a store opened anew, keep the same
    /// keys in the same order as the protocol's in-memory store loaded with
    /// the kept set before each call (what each message did when the whole
    /// set was read and written back): per-chain, total and chain bounds alike.
    @Test func boundsDropWhatTheInMemoryStoreDrops() throws {
        let directory = try TemporaryDirectory(label: "skipped-keys")
        let path = directory.path("messages.db"), key = SecureBytes(randomCount: 32)
        let contact = try MessageStore(path: path, key: key).contacts.add(name: "c", address: "a", identityKey: [1], at: 1)
        var reference = InMemorySkippedMessageKeyStore()
        var random = SplitMix(seed: 35)
        let chains = (0..<(RatchetLimits.maxSkippedChains + 8)).map { SecureBytes(copying: [UInt8](repeating: UInt8($0), count: 32)) }
        var next = [UInt32](repeating: 0, count: chains.count)
        func batch(chain: Int, count: Int) -> [SkippedMessageKey] {
            defer { next[chain] += UInt32(count) }
            return (0..<count).map { offset in
                let counter = next[chain] + UInt32(offset)
                return SkippedMessageKey(headerKey: chains[chain], counter: counter,
                                         messageKey: SecureBytes(copying: [UInt8(chain), UInt8(counter & 0xff), UInt8(counter >> 8)]))
            }
        }
        // Long chains past the per-chain bound and the total, then many short
        // ones past the chain bound, with removals in between.
        var steps: [(chain: Int, count: Int)] = [(0, 700), (1, 300), (0, 500), (2, 900), (1, 400)]
        steps += (3..<chains.count).map { ($0, 1 + Int(random.next() % 5)) }
        steps += [(0, 3), (5, 2), (chains.count - 1, 4)]
        var reachedTotal = false, reachedChains = false
        for (index, step) in steps.enumerated() {
            let keys = batch(chain: step.chain, count: step.count)
            // A chain keeps its place while loaded; loaded again, its oldest kept key places it.
            reference = InMemorySkippedMessageKeyStore(keys: reference.allKeys())
            reference.insert(keys)
            try MessageStore(path: path, key: key).write { store in
                try PersistentSkippedKeys(store: store, contactId: contact.id, now: 1).insert(keys)
            }
            if index % 3 == 0, let used = reference.allKeys().dropFirst(Int(random.next() % 7)).first {
                reference = InMemorySkippedMessageKeyStore(keys: reference.allKeys())
                reference.remove(headerKey: used.headerKey, counter: used.counter)
                try MessageStore(path: path, key: key).write { store in
                    try PersistentSkippedKeys(store: store, contactId: contact.id, now: 1).remove(headerKey: used.headerKey, counter: used.counter)
                }
            }
            let stored = try PersistentSkippedKeys(store: try MessageStore(path: path, key: key), contactId: contact.id, now: 1)
            #expect(try stored.count() == reference.count(), "after step \(index)")
            #expect(try stored.headerKeys() == InMemorySkippedMessageKeyStore(keys: reference.allKeys()).headerKeys(), "after step \(index)")
            reachedTotal = reachedTotal || reference.count() == RatchetLimits.maxSkippedKeysTotal
            reachedChains = reachedChains || reference.headerKeys().count == RatchetLimits.maxSkippedChains
        }
        let stored = try PersistentSkippedKeys(store: try MessageStore(path: path, key: key), contactId: contact.id, now: 1)
        for kept in reference.allKeys() {
            #expect(try stored.messageKey(headerKey: kept.headerKey, counter: kept.counter) == kept.messageKey)
        }
        // Every bound was met on the way (the per-chain one by chain 0's second batch).
        #expect(reachedTotal && reachedChains)
    }

    private func incoming(_ messenger: Messenger) async throws -> [String] {
        try await messenger.history(with: "alice", limit: 100).filter { $0.direction == .incoming }.map(\.body).sorted()
    }
}

/// A small deterministic generator, so the sequence of steps is the same every run.
private struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
