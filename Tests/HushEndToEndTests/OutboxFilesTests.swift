import Foundation
import Testing

/// A file the relay refused (the uploader's blob quota) has no request in the
/// outbox yet, since its pointer is sealed once the relay holds the blob:
/// `hush outbox` said "The outbox is empty." while history showed it failed
/// (a walkthrough). It is listed now, with the relay's reason.
@Suite struct OutboxFilesTests {
    @Test func aFileWhoseUploadFailedIsListedInTheOutbox() throws {
        let bed = try Testbed("outbox-files", relayOptions: ["--blob-quota-mib", "1"])
        let alice = try bed.newUser("alice"), bob = try bed.newUser("bob")
        try bed.meet(alice, bob)
        let path = bed.root + "/big.bin"
        try Data(AttachmentTests.file(2_000_000, canary: "quota")).write(to: URL(fileURLWithPath: path))
        let sent = try bed.hush(alice, ["send", "bob", "--file", path])
        #expect(sent.status != 0 && !sent.crashed, "\(sent)")
        let listed = try bed.succeed(alice, ["outbox", "--json"]).json()
        let files = try #require(listed["files"] as? [[String: Any]], "\(listed)")
        #expect(files.count == 1 && files.first?["fileName"] as? String == "big.bin" && files.first?["status"] as? String == "failed", "\(files)")
        let text = try bed.succeed(alice, ["outbox"])
        #expect(text.stdout.contains("big.bin") && !text.stdout.contains("The outbox is empty."), "\(text.stdout)")
    }
}
