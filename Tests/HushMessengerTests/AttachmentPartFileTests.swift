import Foundation
@testable import HushMessenger
import HushProtocol
import HushStore
import Testing

/// The encrypted copy a download keeps (`<id>.part`, then `<id>.blob`) is
/// written past the page cache in 1 MiB blocks (`DirectWriter`): a download
/// cut off keeps every byte that arrived, also those not yet a whole block,
/// and one whose blob was altered leaves neither a copy nor a decrypted file.
@Suite struct AttachmentPartFileTests {
    static let size = 3 * (1 << 20) + 12_345

    func sent(_ relay: InMemoryRelay) async throws -> (bob: Participant, incoming: StoredAttachment, bytes: Data) {
        let (alice, bob) = try await relay.pair()
        let bytes = Data((0..<Self.size).map { UInt8(truncatingIfNeeded: $0 &* 13 &+ 5) })
        let path = alice.directory.path("video.mp4")
        try bytes.write(to: URL(fileURLWithPath: path))
        _ = try await alice.messenger.sendFile(at: path, to: "bob")
        _ = try await bob.messenger.sync()
        _ = try await bob.messenger.addContact(name: "alice", address: alice.address)
        let incoming = try #require(try await bob.messenger.attachmentList(contact: "alice").first?.attachment)
        return (bob, incoming, bytes)
    }

    func attachmentFiles(of participant: Participant) -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: participant.directory.path("attachments"))) ?? []
    }

    @Test func aDownloadCutOffMidBlockKeepsEveryByteThatArrived() async throws {
        let relay = InMemoryRelay()
        let (bob, incoming, bytes) = try await sent(relay)
        let cut = 2 * (1 << 20) + 300_000  // past two whole blocks, in the middle of the third
        relay.state.withLock { $0.downloadCutAt = cut }
        let out = bob.directory.path("saved.mp4")
        await #expect(throws: MessengerError.self) { try await bob.messenger.fetchAttachment(id: incoming.id, to: out) }
        #expect(!FileManager.default.fileExists(atPath: out))
        let part = bob.directory.path("attachments/\(incoming.id).part")
        #expect((try? FileManager.default.attributesOfItem(atPath: part))?[.size] as? Int == cut)

        let fetched = try await bob.messenger.fetchAttachment(id: incoming.id, to: out)
        #expect(fetched.state == .ready)
        #expect(relay.state.withLock { $0.downloadOffsets } == [0, Int64(cut)])
        #expect(FileManager.default.contents(atPath: out) == bytes)
        #expect(attachmentFiles(of: bob) == ["\(incoming.id).blob"])
        // The kept copy is the relay's blob, byte for byte.
        let blob = try #require(relay.state.withLock { $0.blobs.values.first })
        #expect(FileManager.default.contents(atPath: bob.directory.path("attachments/\(incoming.id).blob")) == Data(blob))
    }

    @Test func aBlobAlteredAtTheRelayLeavesNoCopyAndNoFile() async throws {
        let relay = InMemoryRelay()
        let (bob, incoming, _) = try await sent(relay)
        relay.state.withLock { state in
            let id = state.blobs.keys.first!
            state.blobs[id]![(1 << 20) + 5_000] ^= 0x01  // inside the 17th chunk
        }
        let out = bob.directory.path("saved.mp4")
        await #expect(throws: MessengerError.self) { try await bob.messenger.fetchAttachment(id: incoming.id, to: out) }
        #expect(!FileManager.default.fileExists(atPath: out), "a decrypted file appeared for a blob that did not verify")
        #expect(try FileManager.default.contentsOfDirectory(atPath: bob.directory.path).filter { $0.hasPrefix(".hush-partial-") }.isEmpty)
        #expect(attachmentFiles(of: bob).isEmpty, "the altered blob was kept")
        let stored = try #require(try await bob.messenger.attachmentList(contact: "alice").first?.attachment)
        #expect(stored.state == .failed)
    }
}
