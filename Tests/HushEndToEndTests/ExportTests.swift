import Foundation
import Glibc
import Testing

/// `hush export` (issue 32, item 5) between real processes: texts, a reply,
/// a reaction, an edit and files exchanged, then exported as JSON (parsed
/// back, each thing found) and as Markdown (readable, and a hostile peer's
/// text and file name break out of nothing); a non-empty folder is refused
/// and left as it was; beside a daemon the command runs through it.
@Suite struct ExportTests {
    /// A text a hostile peer could send: escape sequences, Markdown that would
    /// make a heading, a link, raw HTML and a code block, and a forged line.
    static let hostileText = "\u{1B}]0;owned\u{07}\u{1B}[2J# heading [link](http://evil.example) <b>x</b>\n\n    code\n"
        + "**alice** (2000-01-01 00:00 UTC): forged"
    /// A file name a hostile peer could choose ('/' cannot be in one sent from a
    /// real file; `ExportFormatTests` checks "../" names).
    static let hostileFileName = "..\u{1B}]0;owned\u{07}[evil](..)`x`.txt"

    private func mode(_ path: String) -> mode_t {
        var info = stat()
        return stat(path, &info) == 0 ? info.st_mode & 0o777 : 0
    }

    @Test func exportsEveryKindOfMessageAsJSONAndMarkdown() throws {
        let bed = try Testbed("export")
        let alice = try bed.newUser("alice"), bob = try bed.newUser("bob")
        try bed.acquaint(alice, bob)
        let question = try bed.send(alice, to: "bob", "dinner at 8?")
        let questionID = try #require(question["id"] as? Int)
        try bed.sync(bob)
        let bobCopy = try #require(try bed.history(bob, with: "alice").first { $0.body == "dinner at 8?" }?.raw["id"] as? Int)
        try bed.succeed(bob, ["reply", "alice", String(bobCopy), "yes, see you"])
        try bed.succeed(bob, ["react", "alice", String(bobCopy), "👍"])
        try bed.send(bob, to: "alice", Self.hostileText)
        let hostilePath = bed.root + "/" + Self.hostileFileName
        let fileBytes = Data("the file's bytes \(UInt32.random(in: 1...999_999))".utf8)
        try fileBytes.write(to: URL(fileURLWithPath: hostilePath))
        try bed.succeed(bob, ["send", "alice", "--file", hostilePath])
        let laterPath = bed.root + "/later.bin"
        try Data("never fetched".utf8).write(to: URL(fileURLWithPath: laterPath))
        try bed.succeed(bob, ["send", "alice", "--file", laterPath])
        // A file Alice sends: her own copy is exported too.
        let mapPath = bed.root + "/map.txt"
        let mapBytes = Data("the way to the bridge \(UInt32.random(in: 1...999_999))".utf8)
        try mapBytes.write(to: URL(fileURLWithPath: mapPath))
        try bed.succeed(alice, ["send", "bob", "--file", mapPath])
        let moved = try bed.send(alice, to: "bob", "meet at the harbour")
        try bed.succeed(alice, ["edit", "bob", String(try #require(moved["id"] as? Int)), "meet at the bridge"])
        try bed.sync(alice)
        let attachments = try #require(try bed.succeed(alice, ["attachments", "--json"]).json()["attachments"] as? [[String: Any]])
        let hostileID = try #require(attachments.first { $0["fileName"] as? String == Self.hostileFileName }?["id"] as? Int)
        try bed.succeed(alice, ["fetch", String(hostileID)])

        // JSON: one document that parses and holds each of them.
        let jsonDirectory = bed.root + "/export-json"
        let exported = try bed.succeed(alice, ["export", "--format", "json", "--to", jsonDirectory, "--json"]).json()
        #expect(exported["files"] as? Int == 2 && exported["conversations"] as? Int == 1, "\(exported)")
        let document = try #require(try JSONSerialization.jsonObject(
            with: Data(contentsOf: URL(fileURLWithPath: jsonDirectory + "/hush-export.json"))) as? [String: Any])
        #expect(document["format"] as? String == "hush-export" && document["version"] as? Int == 1)
        #expect(document["account"] as? String == alice.address)
        let conversation = try #require((document["conversations"] as? [[String: Any]])?.first)
        #expect(conversation["kind"] as? String == "contact" && conversation["name"] as? String == "bob")
        #expect(conversation["address"] as? String == bob.address && conversation["verification"] as? String == "unverified")
        let messages = try #require(conversation["messages"] as? [[String: Any]])
        func message(_ body: String) throws -> [String: Any] {
            try #require(messages.first { $0["body"] as? String == body }, "no \(body) in \(messages)")
        }
        let asked = try message("dinner at 8?")
        #expect(asked["id"] as? Int == questionID && asked["direction"] as? String == "out" && asked["sender"] as? String == "you")
        #expect((asked["reactions"] as? [[String: Any]])?.first?["emoji"] as? String == "👍")
        #expect((asked["reactions"] as? [[String: Any]])?.first?["address"] as? String == bob.address)
        let sentAt = try #require(asked["sentAt"] as? String)
        #expect(sentAt.hasSuffix("Z") && ISO8601DateFormatter().date(from: sentAt.replacingOccurrences(of: #"\.\d+"#, with: "",
                                                                                                        options: .regularExpression)) != nil,
                "\(sentAt)")
        let reply = try message("yes, see you")
        #expect((reply["replyTo"] as? [String: Any])?["id"] as? Int == questionID && reply["sender"] as? String == "bob", "\(reply)")
        #expect(reply["senderAddress"] as? String == bob.address && reply["direction"] as? String == "in")
        let edited = try message("meet at the bridge")
        #expect(edited["edited"] as? Bool == true && edited["deleted"] as? Bool == false, "\(edited)")
        #expect(try message(Self.hostileText)["status"] as? String != nil, "the JSON keeps the text as sent")
        let files = messages.compactMap { $0["attachment"] as? [String: Any] }
        let hostile = try #require(files.first { $0["name"] as? String == Self.hostileFileName }, "\(files)")
        let relative = try #require(hostile["file"] as? String, "\(hostile)")
        #expect(relative.hasPrefix("files/") && !relative.dropFirst(6).contains("/") && hostile["size"] as? Int == fileBytes.count)
        let copied = jsonDirectory + "/" + relative
        #expect(URL(fileURLWithPath: copied).standardized.path.hasPrefix(jsonDirectory + "/files/"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: copied)) == fileBytes)
        let later = try #require(files.first { $0["name"] as? String == "later.bin" }, "\(files)")
        #expect(later["file"] is NSNull && later["missing"] as? String == "not downloaded", "\(later)")
        let map = try #require(files.first { $0["name"] as? String == "map.txt" }, "\(files)")
        let mapCopy = jsonDirectory + "/" + (try #require(map["file"] as? String, "the sent file is exported: \(map)"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: mapCopy)) == mapBytes)
        // Plaintext for the user only.
        #expect(mode(jsonDirectory) == 0o700 && mode(jsonDirectory + "/files") == 0o700)
        #expect(mode(jsonDirectory + "/hush-export.json") == 0o600 && mode(copied) == 0o600)
        #expect(try FileManager.default.contentsOfDirectory(atPath: bed.root).filter { $0.hasPrefix(".hush-export-") }.isEmpty)

        // Markdown: readable lines, nothing of the peer's reaches a terminal or breaks out.
        let markdownDirectory = bed.root + "/export-md"
        try bed.succeed(alice, ["export", "bob", "--format", "markdown", "--to", markdownDirectory])
        let markdown = try String(contentsOfFile: markdownDirectory + "/contact-bob.md", encoding: .utf8)
        #expect(markdown.hasPrefix("# Conversation with bob\n"), "\(markdown)")
        #expect(markdown.contains("Safety number: not verified") && markdown.contains(bob.address))
        #expect(markdown.contains("**you** (") && markdown.contains("): dinner at 8?"), "\(markdown)")
        #expect(markdown.contains("*↳ replying to you: dinner at 8?*") && markdown.contains("**bob** ("), "\(markdown)")
        #expect(markdown.contains("meet at the bridge *(edited)*") && markdown.contains("Reactions: 👍 bob"), "\(markdown)")
        #expect(markdown.contains("later.bin (13 B, not downloaded: no file)"), "\(markdown)")
        #expect(TerminalEscapeTests.isClean(markdown), "a control character reached the file: \(markdown.debugDescription)")
        let lines = markdown.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.filter { $0.hasPrefix("#") }.count == 1, "a message made a heading: \(markdown)")
        #expect(!lines.contains { $0.hasPrefix("**alice**") || $0.hasPrefix("    ") }, "a message forged a line or a code block: \(markdown)")
        #expect(!markdown.contains("[link]") && !markdown.contains("<b>") && !markdown.contains("[evil]"), "\(markdown)")
        // The links are the two stored files (the received one fetched, the sent one), under their generated names inside the export.
        let links = markdown.matches(of: /\]\((files\/[^)]*)\)/).map { String($0.output.1) }
        #expect(links.count == 2, "\(markdown)")
        var linked: Set<Data> = []
        for link in links {
            #expect(URL(fileURLWithPath: markdownDirectory + "/" + link).standardized.path.hasPrefix(markdownDirectory + "/files/"))
            linked.insert(try Data(contentsOf: URL(fileURLWithPath: markdownDirectory + "/" + link)))
        }
        #expect(linked == [fileBytes, mapBytes])
    }

    @Test func aNonEmptyFolderIsRefusedAndLeftAsItWas() throws {
        let bed = try Testbed("export-refused")
        let alice = try bed.newUser("alice"), bob = try bed.newUser("bob")
        try bed.acquaint(alice, bob)
        let directory = bed.root + "/full"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
        try Data("mine".utf8).write(to: URL(fileURLWithPath: directory + "/keep.txt"))
        for format in ["json", "markdown"] {
            let refused = try bed.hush(alice, ["export", "--format", format, "--to", directory])
            #expect(refused.status == 1 && !refused.crashed && refused.stderr.contains("is not empty"), "\(refused)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == ["keep.txt"])
            #expect(try String(contentsOfFile: directory + "/keep.txt", encoding: .utf8) == "mine")
        }
        let file = bed.root + "/a-file"
        try Data().write(to: URL(fileURLWithPath: file))
        let notFolder = try bed.hush(alice, ["export", "--to", file])
        #expect(notFolder.status == 1 && notFolder.stderr.contains("is not a folder"), "\(notFolder)")
        let unknown = try bed.hush(alice, ["export", "carol", "--to", bed.root + "/for-carol"])
        #expect(unknown.status == 21 && !FileManager.default.fileExists(atPath: bed.root + "/for-carol"), "\(unknown)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: bed.root).filter { $0.hasPrefix(".hush-export-") }.isEmpty)
        // An empty folder is used.
        let empty = bed.root + "/empty"
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: false)
        try bed.succeed(alice, ["export", "--format", "markdown", "--to", empty])
        #expect(try FileManager.default.contentsOfDirectory(atPath: empty) == ["contact-bob.md"])
    }

    /// A write that fails mid-way (here: no file may grow past the
    /// database's size, and the received file is bigger) leaves neither DIR
    /// nor the staging folder.
    @Test func aFailureMidWayLeavesNothing() throws {
        let bed = try Testbed("export-failure")
        let alice = try bed.newUser("alice"), bob = try bed.newUser("bob")
        try bed.acquaint(alice, bob)
        let path = bed.root + "/big.bin"
        try Data(repeating: 0x42, count: 2 << 20).write(to: URL(fileURLWithPath: path))
        try bed.succeed(bob, ["send", "alice", "--file", path])
        try bed.sync(alice)
        try bed.succeed(alice, ["fetch", "1"])
        let sizes = ["messages.db", "messages.db-wal"].map { name -> Int in
            ((try? FileManager.default.attributesOfItem(atPath: alice.home + "/" + name))?[.size] as? Int) ?? 0
        }
        let limit = sizes.max()! + 256 * 1024
        try #require(limit < 2 << 20, "the database (\(sizes)) is too big for this test")
        let directory = bed.root + "/too-big"
        let failed = try bed.hush(alice, ["export", "--to", directory], fileSizeLimit: limit)
        #expect(failed.status == 1 && !failed.crashed && failed.stderr.contains("cannot save the attachment"), "\(failed)")
        #expect(!FileManager.default.fileExists(atPath: directory))
        #expect(try FileManager.default.contentsOfDirectory(atPath: bed.root).filter { $0.hasPrefix(".hush-export-") }.isEmpty)
        // With room, the same export goes through.
        try bed.succeed(alice, ["export", "--to", directory])
        #expect(try Data(contentsOf: URL(fileURLWithPath: directory + "/files/1-big.bin")).count == 2 << 20)
    }

    /// A group is exported with its members and who wrote what; beside a
    /// daemon the daemon runs the export, asking for no passphrase.
    @Test func aGroupIsExportedThroughTheDaemon() throws {
        let bed = try Testbed("export-daemon")
        let alice = try bed.newUser("alice"), bob = try bed.newUser("bob")
        try bed.acquaint(alice, bob)
        try bed.succeed(alice, ["group", "create", "hikers", "bob"])
        for user in [bob, bob] { try bed.sync(user) }
        try bed.send(alice, to: "hikers", "summit at noon?")
        try bed.send(bob, to: "hikers", "yes")
        for user in [alice, bob, alice] { try bed.sync(user) }
        let daemon = try DaemonTests.startDaemon(bed, alice)
        defer { daemon.signal(SIGTERM); _ = daemon.finish(timeout: 20) }
        let directory = bed.root + "/through-daemon"
        let result = try bed.hush(alice, ["export", "--to", directory, "--json"], environment: DaemonTests.noPassphrase)
        #expect(result.status == 0, "\(result)")
        let document = try #require(try JSONSerialization.jsonObject(
            with: Data(contentsOf: URL(fileURLWithPath: directory + "/hush-export.json"))) as? [String: Any])
        let conversations = try #require(document["conversations"] as? [[String: Any]])
        #expect(conversations.count == 2, "\(conversations)")
        let group = try #require(conversations.first { $0["kind"] as? String == "group" }, "\(conversations)")
        #expect(group["name"] as? String == "hikers" && group["standing"] as? String == "member")
        let members = try #require(group["members"] as? [[String: Any]])
        #expect(Set(members.compactMap { $0["address"] as? String }) == [alice.address, bob.address], "\(members)")
        let messages = try #require(group["messages"] as? [[String: Any]])
        let ours = try #require(messages.first { $0["body"] as? String == "summit at noon?" }, "\(messages)")
        #expect(ours["sender"] as? String == "you" && ours["group"] as? String == "hikers" && ours["members"] as? Int == 1, "\(ours)")
        let theirs = try #require(messages.first { $0["body"] as? String == "yes" }, "\(messages)")
        #expect(theirs["sender"] as? String == "bob" && theirs["senderAddress"] as? String == bob.address, "\(theirs)")
        let markdown = try bed.hush(alice, ["export", "group:hikers", "--format", "markdown", "--to", bed.root + "/group-md"],
                                    environment: DaemonTests.noPassphrase)
        #expect(markdown.status == 0, "\(markdown)")
        let text = try String(contentsOfFile: bed.root + "/group-md/group-hikers.md", encoding: .utf8)
        #expect(text.hasPrefix("# Group hikers\n") && text.contains("**bob** (") && text.contains("): yes"), "\(text)")
        #expect(text.contains("safety number not verified"), "\(text)")
    }
}
