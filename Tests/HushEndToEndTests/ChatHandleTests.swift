import Foundation
import Glibc
import Testing

/// `hush chat` without a terminal: every message line carries its id in
/// brackets (a received file too), and /edit, /fetch, /react take that id or
/// "last". /fetch saves the file in the downloads folder, checked, never over
/// a file already there. The same through a daemon that owns bob's account
/// (the chat is then its client: every command is one of its methods).
@Suite struct ChatHandleTests {
    @Test(arguments: [false, true]) func editAndFetchTakeTheIdsTheChatShows(throughDaemon: Bool) throws {
        let bed = try Testbed(throughDaemon ? "chat-handles-daemon" : "chat-handles")
        let alice = try bed.newUser("alice"), bob = try bed.newUser("bob")
        try bed.meet(alice, bob)
        try bed.send(alice, to: "bob", "see you at 7")
        let bytes = AttachmentTests.file(150_000, canary: "handles")
        let path = bed.root + "/map.bin"
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        try bed.succeed(alice, ["send", "bob", "--file", path])
        try bed.sync(bob)
        let daemon = throughDaemon ? try DaemonTests.startDaemon(bed, bob) : nil
        defer { daemon?.signal(SIGTERM); _ = daemon?.finish(timeout: 20) }
        let bobView = try bed.history(bob, with: "alice")
        let textID = try #require(bobView.first { $0.body == "see you at 7" }?.raw["id"] as? Int)
        let fileID = try #require(bobView.last?.raw["id"] as? Int)
        #expect(bobView.last?.raw["contentType"] as? String == "attachment", "\(bobView)")

        let downloads = bed.root + "/downloads"
        let existing = downloads + "/map.bin"
        try FileManager.default.createDirectory(atPath: downloads, withIntermediateDirectories: true)
        try Data("not the map".utf8).write(to: URL(fileURLWithPath: existing))
        let input = "first from bob\n/edit last first from bob, edited\n/react [\(textID)] 👍\n/fetch [\(textID)]\n/fetch\n/help\n"
            + "/reply [\(textID)] answered\n/search see you\n/verify\n"
        // Beside the daemon no passphrase at all: the chat never opens the account itself.
        let environment: [String: String?] = throughDaemon ? ["XDG_DOWNLOAD_DIR": downloads, "HUSH_PASSPHRASE": nil] : ["XDG_DOWNLOAD_DIR": downloads]
        let result = try bed.hush(bob, ["chat", "alice"], stdin: input, environment: environment)
        #expect(result.status == 0 && !result.crashed, "\(result)")
        // Ids in brackets, the received file's included.
        #expect(result.stdout.contains("[\(textID)] ") && result.stdout.contains("[\(fileID)] "), "\(result.stdout)")
        #expect(result.stdout.contains("first from bob, edited (edited)"), "\(result.stdout)")
        #expect(result.stdout.contains("message \(textID) carries no file"), "\(result.stdout)")
        #expect(result.stdout.contains("saved to \(downloads)/map-1.bin"), "\(result.stdout)")
        #expect(result.stdout.contains("/edit ID TEXT") && result.stdout.contains("/fetch [ID]"), "\(result.stdout)")
        #expect(result.stdout.contains("you: ↳ “see you at 7” answered"), "\(result.stdout)")
        #expect(result.stdout.contains("1 message with “see you”"), "\(result.stdout)")
        #expect(result.stdout.contains("safety number with alice"), "\(result.stdout)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: downloads + "/map-1.bin")) == Data(bytes))
        #expect(try String(contentsOfFile: existing, encoding: .utf8) == "not the map", "an existing file is never replaced")

        try bed.sync(alice)
        let aliceView = try bed.history(alice, with: "bob")
        let edited = try #require(aliceView.first { $0.body == "first from bob, edited" }?.raw, "\(aliceView)")
        #expect(edited["edited"] as? Bool == true)
        #expect(!aliceView.bodies.contains("first from bob"), "only the edited text: \(aliceView.bodies)")
        #expect(aliceView.count("answered") == 1, "\(aliceView.bodies)")
        let reacted = try #require(aliceView.first { $0.body == "see you at 7" }?.raw)
        #expect(((reacted["reactions"] as? [[String: Any]]) ?? []).compactMap { $0["emoji"] as? String } == ["👍"], "\(reacted)")
    }
}
