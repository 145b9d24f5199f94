import Foundation
import HushCrypto
@testable import HushMessenger
import HushProtocol
import HushStore
import Synchronization
import Testing

/// Attachments through the pipeline on the in-memory relay: the message is
/// pending until its upload completes, the outbox retries the upload (from
/// the bytes the relay holds), a refusal fails it until `retry`, and the
/// receiver stores only the pointer until it fetches.
@Suite struct AttachmentPipelineTests {
    func file(in participant: Participant, size: Int) throws -> (path: String, bytes: Data) {
        let bytes = Data((0..<size).map { UInt8(truncatingIfNeeded: $0 &* 29 &+ 11) })
        let path = participant.directory.path("photo.png")
        try bytes.write(to: URL(fileURLWithPath: path))
        return (path, bytes)
    }

    @Test func anInterruptedUploadIsRetriedByTheOutboxAndResumes() async throws {
        let relay = InMemoryRelay()
        let (alice, bob) = try await relay.pair()
        let (path, bytes) = try file(in: alice, size: 300_000)
        relay.state.withLock { $0.uploadFailures = [.unavailable(reason: "connection reset")] }

        let (message, attachment) = try await alice.messenger.sendFile(at: path, to: "bob")
        #expect(message.status == .pending, "no pointer goes out before the blob is at the relay")
        #expect(attachment.state == .uploading)
        #expect(attachment.lastError?.contains("connection reset") == true)
        #expect(try await alice.messenger.outbox().isEmpty, "nothing is queued for the relay but the upload")
        let kept = relay.state.withLock { $0.uploads.values.first?.bytes.count ?? 0 }
        #expect(kept > 0)

        // The upload waits out its own backoff: a flush before then does not try it.
        #expect(await alice.messenger.flushOutbox().sent == 0)
        #expect(relay.state.withLock { $0.uploadCalls } == 1)
        alice.clock.advance(milliseconds: 10_000)
        let report = await alice.messenger.flushOutbox()
        #expect(report.sent == 2)  // (and the delivery credential the first message hands over, PROTOCOL §11)
        #expect(try await alice.messenger.history(with: "bob").first?.status == .sent)
        #expect(relay.state.withLock { $0.uploadCalls } == 2)
        #expect(try await alice.messenger.attachmentList().first?.attachment.state == .uploaded)

        _ = try await bob.messenger.sync()
        try await bob.messenger.addContact(name: "alice", address: alice.address)
        let incoming = try #require(try await bob.messenger.attachmentList(contact: "alice").first?.attachment)
        #expect(incoming.state == .available && incoming.fileName == "photo.png" && incoming.mediaType == "image/png")
        #expect(incoming.size == 300_000)
        let out = bob.directory.path("saved.png")
        let fetched = try await bob.messenger.fetchAttachment(id: incoming.id, to: out)
        #expect(fetched.state == .ready)
        #expect(FileManager.default.contents(atPath: out) == bytes)
    }

    /// `fetch --out` decrypts as it downloads (one pass, not a download and
    /// then a second decryption): an existing destination is refused before
    /// a byte is fetched; a download cut off leaves nothing at the
    /// destination and keeps what it checked, and the next fetch resumes
    /// after it and still writes the whole file (the kept part is read back
    /// into it); a later export comes from the stored copy.
    @Test func fetchingToAFileDecryptsAsItDownloadsAndResumes() async throws {
        let relay = InMemoryRelay()
        let (alice, bob) = try await relay.pair()
        let (path, bytes) = try file(in: alice, size: 300_000)
        _ = try await alice.messenger.sendFile(at: path, to: "bob")
        _ = try await bob.messenger.sync()
        try await bob.messenger.addContact(name: "alice", address: alice.address)
        let incoming = try #require(try await bob.messenger.attachmentList(contact: "alice").first?.attachment)

        let taken = bob.directory.path("taken.png")
        try Data("mine".utf8).write(to: URL(fileURLWithPath: taken))
        await #expect(throws: MessengerError.self) { try await bob.messenger.fetchAttachment(id: incoming.id, to: taken) }
        #expect(relay.state.withLock { $0.downloadOffsets }.isEmpty, "refused before anything downloads")
        #expect(FileManager.default.contents(atPath: taken) == Data("mine".utf8))

        relay.state.withLock { $0.downloadCutAt = 150_000 }
        let out = bob.directory.path("saved.png")
        await #expect(throws: MessengerError.self) { try await bob.messenger.fetchAttachment(id: incoming.id, to: out) }
        #expect(!FileManager.default.fileExists(atPath: out), "nothing unverified under the final name")
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: bob.directory.path).filter { $0.hasPrefix(".hush-partial-") }
        #expect(leftovers.isEmpty)

        let fetched = try await bob.messenger.fetchAttachment(id: incoming.id, to: out)
        #expect(fetched.state == .ready)
        #expect(FileManager.default.contents(atPath: out) == bytes)
        #expect(relay.state.withLock { $0.downloadOffsets } == [0, 150_000], "the second download resumed after what the first kept")

        let again = bob.directory.path("again.png")
        _ = try await bob.messenger.fetchAttachment(id: incoming.id, to: again)
        #expect(FileManager.default.contents(atPath: again) == bytes)
        #expect(relay.state.withLock { $0.downloadOffsets }.count == 2, "exported from the stored copy")
    }

    /// Progress goes to the call that moves that attachment, by its id: a
    /// fetch waiting on its download while a flush uploads another file (two
    /// transfers at once, as the daemon runs them) hears its own download
    /// only, the upload is heard by nobody, and nothing reaches the fetch's
    /// listener once it has answered (a failed fetch included).
    @Test func twoTransfersAtOnceEachHearOnlyTheirOwnProgress() async throws {
        let relay = InMemoryRelay()
        let (alice, bob) = try await relay.pair()
        let (path, _) = try file(in: alice, size: 300_000)
        _ = try await alice.messenger.sendFile(at: path, to: "bob")
        _ = try await bob.messenger.sync()
        try await bob.messenger.addContact(name: "alice", address: alice.address)
        let incoming = try #require(try await bob.messenger.attachmentList(contact: "alice").first?.attachment)
        // Bob's own file, whose first upload fails: the next flush uploads it.
        relay.state.withLock { $0.uploadFailures = [.unavailable(reason: "connection reset")] }
        let (ownPath, _) = try file(in: bob, size: 200_000)
        let own = try await bob.messenger.sendFile(at: ownPath, to: "alice").attachment
        #expect(own.state == .uploading)
        bob.clock.advance(milliseconds: 10_000)  // past the failed attempt's backoff

        let heard = Mutex<[AttachmentProgress]>([])
        relay.state.withLock { $0.downloadPause = .milliseconds(300) }
        let messenger = bob.messenger
        let fetch = Task {
            try await messenger.fetchAttachment(id: incoming.id, to: nil) { step in heard.withLock { $0.append(step) } }
        }
        // While the fetch waits for its bytes, a flush uploads Bob's file.
        while relay.state.withLock({ $0.downloadOffsets.isEmpty }) { try await Task.sleep(for: .milliseconds(5)) }
        _ = await messenger.flushOutbox()
        #expect(try await messenger.attachmentList().first { $0.attachment.id == own.id }?.attachment.state == .uploaded)
        #expect(try await fetch.value.state == .ready)
        let steps = heard.withLock { $0 }
        #expect(!steps.isEmpty && steps.allSatisfy { $0.attachmentId == incoming.id && $0.phase == .downloading },
                "\(steps.filter { $0.attachmentId != incoming.id }.count) steps of another transfer")

        // A fetch that fails: its listener hears nothing after it threw.
        relay.state.withLock { $0.downloadPause = nil; $0.downloadCutAt = 50_000 }
        let (again, _) = try file(in: alice, size: 300_000)
        _ = try await alice.messenger.sendFile(at: again, to: "bob")
        _ = try await bob.messenger.sync()
        let second = try #require(try await bob.messenger.attachmentList(contact: "alice").map(\.attachment).last { $0.direction == .incoming })
        #expect(second.id != incoming.id)
        let late = Mutex(0)
        let answered = Mutex(false)
        await #expect(throws: MessengerError.self) {
            try await messenger.fetchAttachment(id: second.id, to: nil) { _ in
                if answered.withLock({ $0 }) { late.withLock { $0 += 1 } }
            }
        }
        answered.withLock { $0 = true }
        _ = try await messenger.fetchAttachment(id: second.id, to: nil)
        #expect(late.withLock { $0 } == 0, "progress after the failed fetch had answered")
    }

    /// Two flushes at once (re-entrancy at the upload's awaits, as
    /// `runLive`'s sync and the retry loop do): one claims the row, the
    /// other leaves it alone; one upload, one pointer.
    @Test func concurrentFlushesUploadOnce() async throws {
        let relay = InMemoryRelay()
        let (alice, _) = try await relay.pair()
        let (path, _) = try file(in: alice, size: 1_000)
        relay.state.withLock { $0.uploadFailures = [.unavailable(reason: "connection reset")] }
        _ = try await alice.messenger.sendFile(at: path, to: "bob")
        relay.state.withLock { $0.uploadPause = .milliseconds(200) }
        alice.clock.advance(milliseconds: 10_000)  // past the failed attempt's backoff
        let messenger = alice.messenger
        async let first = messenger.flushOutbox()
        async let second = messenger.flushOutbox()
        let sent = await first.sent + second.sent
        #expect(sent == 2)  // (and the delivery credential the first message hands over, PROTOCOL §11)
        #expect(relay.state.withLock { $0.uploadCalls } == 2, "the failed attempt and one upload, never a second")
        #expect(try await alice.messenger.attachmentList().first?.attachment.state == .uploaded)
        #expect(try await alice.messenger.history(with: "bob").first?.status == .sent)
    }

    /// 429 on an upload is "later", not a refusal: the file waits and the
    /// next flush sends it.
    @Test func aRateLimitedUploadIsRetriedNotFailed() async throws {
        let relay = InMemoryRelay()
        let (alice, _) = try await relay.pair()
        let (path, _) = try file(in: alice, size: 1_000)
        relay.state.withLock { $0.uploadFailures = [.rateLimited(retryAfterMilliseconds: 1_000)] }
        let (message, attachment) = try await alice.messenger.sendFile(at: path, to: "bob")
        #expect(message.status == .pending)
        #expect(attachment.state == .uploading)
        alice.clock.advance(milliseconds: 10_000)
        #expect(await alice.messenger.flushOutbox().sent == 2)  // (and the delivery credential the first message hands over, PROTOCOL §11)
        #expect(try await alice.messenger.history(with: "bob").first?.status == .sent)
    }

    /// A file whose upload keeps failing does not hold up the text sent after
    /// it: the text goes out at once, and the upload is tried again on its own
    /// schedule, then its message follows.
    @Test func aFailingUploadDoesNotHoldUpTextSentAfterIt() async throws {
        let relay = InMemoryRelay()
        let (alice, bob) = try await relay.pair()
        _ = try await bob.messenger.addContact(name: "alice", address: alice.address)
        let (path, _) = try file(in: alice, size: 200_000)
        relay.state.withLock { $0.uploadFailures = [.unavailable(reason: "upstream timeout"), .unavailable(reason: "upstream timeout")] }
        _ = try await alice.messenger.sendFile(at: path, to: "bob")
        #expect(relay.state.withLock { $0.uploadCalls } == 1)
        let text = try await alice.messenger.send(text: "sent after the file", to: "bob")
        #expect(text.status == .sent, "the text waited for the file")
        #expect(relay.state.withLock { $0.uploadCalls } == 1, "the failed upload was tried again at once, ahead of its backoff")
        _ = try await bob.messenger.sync()
        #expect(try await bob.messenger.history(with: "alice").map(\.body) == ["sent after the file"])
        // Its backoff grows; once the relay takes it, the file's message follows.
        alice.clock.advance(milliseconds: 10_000)
        _ = await alice.messenger.flushOutbox()
        #expect(relay.state.withLock { $0.uploadCalls } == 2)
        alice.clock.advance(milliseconds: 60_000)
        #expect(await alice.messenger.flushOutbox().sent == 1)
        _ = try await bob.messenger.sync()
        #expect(try await bob.messenger.attachmentList(contact: "alice").count == 1)
    }

    @Test func aRefusedUploadFailsTheMessageUntilRetried() async throws {
        let relay = InMemoryRelay()
        let (alice, _) = try await relay.pair()
        let (path, _) = try file(in: alice, size: 1_000)
        relay.state.withLock { $0.uploadFailures = [.rejected(status: 413, code: "your blob storage is full (1 MiB at most)")] }
        let (message, attachment) = try await alice.messenger.sendFile(at: path, to: "bob")
        #expect(message.status == .failed)
        #expect(attachment.state == .failed)
        #expect(attachment.lastError == "the relay refused the file: your blob storage is full (1 MiB at most)")
        // Flushing again does not retry a refusal; the user's retry does.
        #expect(await alice.messenger.flushOutbox().sent == 0)
        let report = try await alice.messenger.retry(requestID: nil)
        #expect(report.sent == 2)  // (and the delivery credential the first message hands over, PROTOCOL §11)
        #expect(try await alice.messenger.history(with: "bob").first?.status == .sent)
    }

    /// A pointer whose blob id no relay issues (here a path) keeps its message,
    /// its file is marked failed with the reason, and fetching it asks the
    /// relay for nothing.
    @Test func aPointerNamingAnImpossibleBlobIDIsStoredAsFailed() async throws {
        let relay = InMemoryRelay()
        let (alice, bob) = try await relay.pair()
        _ = try await bob.messenger.addContact(name: "alice", address: alice.address)
        for (index, blobID) in ["../mailboxes/x", String(repeating: "A", count: 64)].enumerated() {
            let pointer = try AttachmentPointer(key: SecureBytes(randomCount: 32), digest: [UInt8](repeating: 3, count: 32), size: 10,
                                                blobID: Array(blobID.utf8), fileName: "evil-\(index).bin", mediaType: "")
            _ = try await alice.messenger.seal(.attachment(pointer), to: "bob")
        }
        _ = await alice.messenger.flushOutbox()
        #expect(try await bob.messenger.sync().received == 3)  // (and the delivery credential the first message hands over, PROTOCOL §11)
        let received = try await bob.messenger.attachmentList()
        #expect(received.count == 2)
        for (attachment, _) in received {
            #expect(attachment.state == .failed && attachment.blobId == nil, "\(attachment)")
            #expect(attachment.lastError?.contains("no relay issues") == true)
            await #expect(throws: MessengerError.self) { try await bob.messenger.fetchAttachment(id: attachment.id, to: nil) }
        }
    }

    @Test func sendingAMissingFileSaysSoAndStoresNothing() async throws {
        let relay = InMemoryRelay()
        let (alice, _) = try await relay.pair()
        await #expect(throws: MessengerError.self) { try await alice.messenger.sendFile(at: alice.directory.path("nope.jpg"), to: "bob") }
        #expect(try await alice.messenger.history(with: "bob").isEmpty)
        #expect(try await alice.messenger.attachmentList().isEmpty)
    }
}
