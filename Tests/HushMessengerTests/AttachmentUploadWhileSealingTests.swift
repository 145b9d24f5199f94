import Foundation
@testable import HushMessenger
import HushProtocol
import Testing

/// A file's blob is uploaded while it is being sealed (issue 35, item 3):
/// the upload follows the sealed file as it grows, the sealed copy stays as
/// the sender's own (and no sealing file), and an upload cut off resumes the
/// same relay upload, from the relay's bytes, at the next flush.
@Suite struct AttachmentUploadWhileSealingTests {
    /// A file of several chunks, so that the sealing takes more than one step.
    static let size = 5 * AttachmentBlob.chunkSize + 1_234

    func file(in participant: Participant) throws -> (path: String, bytes: Data) {
        let bytes = Data((0..<Self.size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })
        let path = participant.directory.path("report.pdf")
        try bytes.write(to: URL(fileURLWithPath: path))
        return (path, bytes)
    }

    func attachmentFiles(of participant: Participant) -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: participant.directory.path("attachments"))) ?? []
    }

    /// Bob syncs, fetches alice's file and holds exactly `bytes`.
    func expectReceived(_ bytes: Data, by bob: Participant, from alice: Participant) async throws {
        _ = try await bob.messenger.sync()
        _ = try await bob.messenger.addContact(name: "alice", address: alice.address)
        let incoming = try #require(try await bob.messenger.attachmentList(contact: "alice").first?.attachment)
        let out = bob.directory.path("saved.pdf")
        #expect(try await bob.messenger.fetchAttachment(id: incoming.id, to: out).state == .ready)
        #expect(FileManager.default.contents(atPath: out) == bytes)
    }

    @Test func theUploadFollowsTheSealingAndTheSendersCopyStays() async throws {
        let relay = InMemoryRelay()
        let (alice, bob) = try await relay.pair()
        let (path, bytes) = try file(in: alice)

        let (message, attachment) = try await alice.messenger.sendFile(at: path, to: "bob")
        #expect(message.status == .sent)
        #expect(attachment.state == .uploaded)
        #expect(relay.state.withLock { $0.followedUploads } == 1, "the upload waited for the whole file instead of following it")
        #expect(relay.state.withLock { $0.uploadCalls } == 1)
        #expect(attachmentFiles(of: alice) == ["\(attachment.id).blob"], "the sender's own copy, and no sealing file")
        #expect(alice.messenger.holdsFile(attachmentID: attachment.id))

        try await expectReceived(bytes, by: bob, from: alice)
        // Alice decrypts her own copy: nothing is downloaded.
        let downloads = relay.state.withLock { $0.downloadOffsets.count }
        let mine = alice.directory.path("mine.pdf")
        _ = try await alice.messenger.fetchAttachment(id: attachment.id, to: mine)
        #expect(FileManager.default.contents(atPath: mine) == bytes)
        #expect(relay.state.withLock { $0.downloadOffsets.count } == downloads, "the sender downloaded its own file")
    }

    @Test func anUploadCutOffWhileSealingResumesTheSameUpload() async throws {
        let relay = InMemoryRelay()
        let (alice, bob) = try await relay.pair()
        let (path, bytes) = try file(in: alice)
        relay.state.withLock { $0.uploadFailures = [.unavailable(reason: "connection reset")] }

        let (message, attachment) = try await alice.messenger.sendFile(at: path, to: "bob")
        #expect(message.status == .pending)
        #expect(attachment.state == .uploading)
        #expect(attachment.lastError?.contains("connection reset") == true)
        #expect(relay.state.withLock { $0.followedUploads } == 1)
        let kept = relay.state.withLock { $0.uploads.values.first?.bytes.count ?? 0 }
        #expect(kept > 0 && kept < Int(AttachmentBlob.blobLength(plaintextSize: UInt64(Self.size))))
        // The whole sealed file stays for the next attempt, under the attachment's name.
        #expect(attachmentFiles(of: alice) == ["\(attachment.id).blob"])

        alice.clock.advance(milliseconds: 10_000)
        #expect(await alice.messenger.flushOutbox().sent == 2)  // (and the delivery credential the first message hands over, PROTOCOL §11)
        #expect(relay.state.withLock { $0.uploads.isEmpty }, "a second upload was started instead of the first one resumed")
        #expect(relay.state.withLock { $0.blobs.count } == 1)
        #expect(attachmentFiles(of: alice) == ["\(attachment.id).blob"], "the copy stays as the sender's own")

        try await expectReceived(bytes, by: bob, from: alice)
    }

    /// The upload's reader waits for bytes past its position, is told when
    /// the writer stopped short of them, and gets the latest bytes from
    /// memory (older ones it reads from the file).
    @Test func theFeedWakesItsReaderHoldsTheLatestBytesAndTellsWhenTheWriterStops() async throws {
        let feed = SealedBlobFeed(windowBytes: 64)
        let waited = Task { try await feed.wait(beyond: 0) }
        try await Task.sleep(for: .milliseconds(20))
        let first = (0..<100).map { UInt8($0) }
        first.withUnsafeBytes { feed.append($0) }
        #expect(try await waited.value == 100)
        #expect(try await feed.wait(beyond: 50) == 100)
        var buffer = [UInt8](repeating: 0, count: 40)
        #expect(buffer.withUnsafeMutableBytes { feed.copy(at: 30, into: $0) } == 0, "bytes older than the window are the file's to give")
        #expect(buffer.withUnsafeMutableBytes { feed.copy(at: 50, into: $0) } == 40)
        #expect(buffer == Array(first[50..<90]))
        [UInt8](repeating: 7, count: 30).withUnsafeBytes { feed.append($0) }  // wraps around the ring
        #expect(buffer.withUnsafeMutableBytes { feed.copy(at: 100, into: $0) } == 30)
        #expect(buffer.prefix(30).allSatisfy { $0 == 7 })
        #expect(buffer.withUnsafeMutableBytes { feed.copy(at: 80, into: $0) } == 40)
        #expect(buffer == Array(first[80..<100]) + [UInt8](repeating: 7, count: 20))
        #expect(buffer.withUnsafeMutableBytes { feed.copy(at: 130, into: $0) } == 0, "nothing is written there yet")

        let short = Task { try await feed.wait(beyond: 130) }
        try await Task.sleep(for: .milliseconds(20))
        feed.end(failed: false)
        await #expect(throws: SealedBlobFeed.WriterStopped.self) { try await short.value }
        await #expect(throws: SealedBlobFeed.WriterStopped.self) { try await feed.wait(beyond: 130) }
        #expect(try await feed.wait(beyond: 129) == 130)
        let failed = SealedBlobFeed(windowBytes: 64)
        [UInt8](repeating: 1, count: 10).withUnsafeBytes { failed.append($0) }
        failed.end(failed: true)
        await #expect(throws: SealedBlobFeed.WriterStopped.self) { try await failed.wait(beyond: 0) }
    }
}
