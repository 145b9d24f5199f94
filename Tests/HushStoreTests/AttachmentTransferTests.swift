import HushCrypto
import HushStore
import Testing

/// Who holds a download: one process at a time, and a download whose process
/// died goes back to `available` (what it kept is resumed by the next fetch).
@Suite struct AttachmentTransferTests {
    private func receivedAttachment(_ fixture: StoreFixture) throws -> Int64 {
        let message = try fixture.incoming(try fixture.conversation("alice"), serverId: 1, body: "", at: 1)
        return try fixture.store.attachments.insert(
            NewAttachment(messageId: message, direction: .incoming, state: .available, fileName: "a.bin", mediaType: "",
                          size: 10, key: SecureBytes(randomCount: 32), digest: [UInt8](repeating: 1, count: 32),
                          blobId: String(repeating: "a", count: 64)), at: 1)
    }

    @Test func aDownloadHeldByALiveProcessIsNotClaimedTwice() throws {
        let fixture = try StoreFixture()
        let id = try receivedAttachment(fixture)
        let attachments = fixture.store.attachments
        #expect(try attachments.claimDownload(id: id, holder: 100, at: 2) { _ in true })
        #expect(try attachments.attachment(id: id)?.state == .downloading)
        // Another live process, and another task of the holder itself, are refused.
        #expect(try !attachments.claimDownload(id: id, holder: 200, at: 3) { _ in true })
        #expect(try !attachments.claimDownload(id: id, holder: 100, at: 3) { _ in true })
        // While it lives, it is not taken for interrupted.
        #expect(try attachments.interruptAbandonedDownloads(reason: "gone", at: 4) { $0 == 100 } == 0)
        // Once the holder is gone, another process may take it over.
        #expect(try attachments.claimDownload(id: id, holder: 200, at: 5) { $0 != 100 })
        try attachments.releaseTransfer(id: id)
        // Released but left "downloading" (a crash between the two): interrupted, back to available.
        #expect(try attachments.interruptAbandonedDownloads(reason: "interrupted", at: 6) { _ in true } == 1)
        let row = try #require(try attachments.attachment(id: id))
        #expect(row.state == .available && row.lastError == "interrupted")
        #expect(try attachments.claimDownload(id: id, holder: 300, at: 7) { _ in true })
    }
}
