import Foundation
import HushCrypto
import HushStore
import HushTesting

/// A store in a fresh temporary directory, removed with the fixture.
final class StoreFixture {
    let directory: TemporaryDirectory
    let key: SecureBytes
    let store: MessageStore

    init(seed: String = "store-fixture") throws {
        directory = try TemporaryDirectory(label: "store-test")
        key = SecureBytes(randomCount: 32, using: DeterministicRandom(seed: seed), storage: .guarded)
        store = try MessageStore(path: directory.path("messages.db"), key: key)
    }

    var path: String { directory.path("messages.db") }

    func file(_ name: String) -> String { directory.path(name) }

    /// A conversation with a contact named `name`.
    func conversation(_ name: String) throws -> Int64 {
        let contact = try store.contacts.add(name: name, address: "addr-\(name)", identityKey: Array(repeating: 7, count: 32), at: 1)
        return try store.conversations.conversation(forContact: contact.id, title: name, at: 1)
    }

    @discardableResult
    func incoming(_ conversation: Int64, serverId: Int64, body: String, at time: Int64) throws -> Int64 {
        try store.messages.insert(NewMessage(conversationId: conversation, serverId: serverId, clientMessageId: "in-\(conversation)-\(serverId)",
                                             direction: .incoming, sender: "peer", body: body, status: .delivered,
                                             createdAt: time, relayTimestamp: time)).id
    }

    @discardableResult
    func outgoingPending(_ conversation: Int64, body: String, at time: Int64, requestId: String) throws -> Int64 {
        try store.sendQueue.queue(NewMessage(conversationId: conversation, clientMessageId: "out-\(requestId)",
                                                    direction: .outgoing, sender: "me", body: body, status: .pending, createdAt: time),
                                  requestId: requestId, sealedPayload: Array("sealed-\(requestId)".utf8), at: time)
    }
}
