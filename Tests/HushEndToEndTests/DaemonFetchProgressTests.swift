import Foundation
import Glibc
import HushDaemon
import Testing

/// `messages.fetch` through `hush daemon`: its `fetch.progress`
/// notifications all come before its answer, an error as much as a result,
/// so a client that has its answer hears nothing more of that fetch.
@Suite struct DaemonFetchProgressTests {
    @Test func aFailedFetchSendsNoProgressAfterItsAnswer() throws {
        let bed = try Testbed("daemon-fetch-progress")
        let alice = try bed.newUser("alice"), bob = try bed.newUser("bob")
        try bed.meet(alice, bob)
        let path = bed.root + "/big.bin"
        try Data(AttachmentTests.file(4 << 20, canary: "x")).write(to: URL(fileURLWithPath: path))
        try bed.succeed(alice, ["send", "bob", "--file", path])
        try bed.sync(bob)
        let messageId = try #require(try bed.history(bob, with: "alice").incoming.last?.raw["id"] as? Int)

        // A byte changed at the relay late in the blob: the download checks
        // chunk by chunk, so progress comes first, then the error.
        let blobDirectory = bed.relay.dataDirectory + "/blobs"
        let blobName = try #require(try FileManager.default.contentsOfDirectory(atPath: blobDirectory).first { !$0.hasPrefix(".") })
        let blobPath = blobDirectory + "/" + blobName
        var blob = try Data(contentsOf: URL(fileURLWithPath: blobPath))
        blob[blob.startIndex + blob.count * 3 / 4] ^= 0x01
        try blob.write(to: URL(fileURLWithPath: blobPath))

        let daemon = try DaemonTests.startDaemon(bed, bob)
        defer { daemon.signal(SIGTERM); _ = daemon.finish(timeout: 20) }
        let connection = try DaemonConnection.connect(socket: bob.home + "/daemon.sock")
        defer { connection.close() }
        let folder = bed.root + "/fetched"
        try connection.send(line: #"{"jsonrpc":"2.0","id":1,"method":"messages.fetch","params":{"to":"alice","id":\#(messageId),"folder":"\#(folder)"}}"#)
        var progress = 0
        var answer: [String: Any]?
        while answer == nil, let line = try connection.receiveLine() {
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            if object?["method"] as? String == "fetch.progress" { progress += 1 } else { answer = object }
        }
        #expect(answer?["id"] as? Int == 1 && answer?["error"] != nil, "\(answer ?? [:])")
        #expect(progress > 0, "no progress before the damaged chunk")

        // Whatever the daemon sends next on this connection answers the next call.
        usleep(500_000)
        try connection.send(line: #"{"jsonrpc":"2.0","id":2,"method":"daemon.status"}"#)
        var late: [String] = []
        while let line = try connection.receiveLine() {
            guard line.contains(#""fetch.progress""#) else {
                #expect(line.contains(#""id":2"#), "\(line)")
                break
            }
            late.append(line)
        }
        #expect(late.isEmpty, "\(late.count) fetch.progress notifications after the fetch's error")
    }
}
