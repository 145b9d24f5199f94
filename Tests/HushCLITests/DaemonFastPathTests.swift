import ArgumentParser
import Foundation
import Testing
@testable import hush

/// The unparsed way to the daemon (`DaemonFastPath`) must take exactly the
/// lines the parsed way would hand over, and read standard input exactly
/// when the command would: its lists are checked against the parser's own
/// definitions, so a new command or option cannot drift from them.
@Suite struct DaemonFastPathTests {
    /// The words of every command in the tree, with its type.
    static func commandTree() -> [(words: [String], command: any ParsableCommand.Type)] {
        var found: [(words: [String], command: any ParsableCommand.Type)] = []
        var pending: [(words: [String], command: any ParsableCommand.Type)] = Hush.configuration.subcommands.map { ([], $0) }
        while let (parent, command) = pending.popLast() {
            let words = parent + [command.configuration.commandName ?? "\(command)"]
            found.append((words, command))
            pending += command.configuration.subcommands.map { (words, $0) }
        }
        return found
    }

    @Test func everyCommandTheDaemonRunsIsOnTheListAndNothingElse() {
        let runsThroughDaemon = Set(Self.commandTree().filter { $0.command is any RunsThroughDaemon.Type }.map(\.words))
        #expect(runsThroughDaemon == DaemonFastPath.commands,
                "missing: \(runsThroughDaemon.subtracting(DaemonFastPath.commands)); not the daemon's: \(DaemonFastPath.commands.subtracting(runsThroughDaemon))")
    }

    /// The commands that read their text from standard input: where the text
    /// is, which options take a value and which are flags, as the parser has them.
    @Test func theTextCommandsArgumentsAreTheParsers() throws {
        let help = try #require(try JSONSerialization.jsonObject(with: Data(Hush._dumpHelp().utf8)) as? [String: Any])
        func command(_ words: [String]) -> [String: Any]? {
            var node = help["command"] as? [String: Any]
            for word in words {
                node = (node?["subcommands"] as? [[String: Any]])?.first { $0["commandName"] as? String == word }
            }
            return node
        }
        #expect(Set(DaemonFastPath.textFromInput.keys) == [["send"], ["reply"], ["edit"]])
        for (words, text) in DaemonFastPath.textFromInput {
            let arguments = try #require(command(words)?["arguments"] as? [[String: Any]], "\(words)")
            func longNames(_ kind: String) -> Set<String> {
                Set(arguments.filter { $0["kind"] as? String == kind }.flatMap { argument in
                    ((argument["names"] as? [[String: Any]]) ?? []).filter { $0["kind"] as? String == "long" }.compactMap { $0["name"] as? String }
                })
            }
            #expect(longNames("option") == text.valueOptions, "\(words)")
            #expect(longNames("flag").subtracting(["help"]) == text.flags, "\(words)")
            let positionals = arguments.filter { $0["kind"] as? String == "positional" }.compactMap { $0["valueName"] as? String }
            #expect(positionals.firstIndex(of: "text") == text.position, "\(words): \(positionals)")
            // No short options: the scanner leaves every "-x" to the parser.
            #expect(!arguments.contains { argument in
                ((argument["names"] as? [[String: Any]]) ?? []).contains { $0["kind"] as? String == "short" && $0["name"] as? String != "h" }
            }, "\(words)")
        }
    }

    @Test func linesTheParserMustJudgeAreLeftToIt() {
        for line in [["whoami", "--home", "/x"], ["whoami", "--home=/x"], ["send", "bob", "--help"], ["history", "-h"],
                     ["send", "bob", "--", "-x"], ["chat", "bob"], ["contact"], ["requests"], ["daemon", "status"], [],
                     ["send"], ["reply", "bob"], ["reply", "bob", "abc"], ["edit", "bob", "1.5", "x"], ["send", "bob", "--unknown"], ["send", "bob", "--file"], ["send", "bob", "-x"],
                     ["whoami", "--generate-completion-script", "bash"], ["whoami", "--version"], ["sendd", "bob"]] {
            #expect(DaemonFastPath.plan(line) == nil, "\(line)")
        }
    }

    @Test func standardInputIsReadExactlyWhenTheTextIsMissing() {
        func reads(_ line: [String]) -> Bool? { DaemonFastPath.plan(line)?.readsInput }
        #expect(reads(["whoami"]) == false)
        #expect(reads(["history", "bob", "--json"]) == false)
        #expect(DaemonFastPath.plan(["contact", "add", "carol", "hush1x"])?.words == ["contact", "add"])
        #expect(reads(["send", "bob", "hi"]) == false)
        #expect(reads(["send", "--json", "bob", "hi"]) == false)
        #expect(reads(["send", "bob"]) == true)
        #expect(reads(["send", "bob", "-"]) == true)
        #expect(reads(["send", "bob", "--json"]) == true)
        #expect(reads(["send", "bob", "--file", "notes.txt"]) == false)
        #expect(reads(["send", "bob", "--file=notes.txt"]) == false)
        #expect(reads(["send", "bob", "--passphrase-file", "pw", "hi"]) == false)
        #expect(reads(["send", "bob", "--passphrase-file", "pw"]) == true)
        #expect(reads(["reply", "bob", "12"]) == true)
        #expect(reads(["reply", "bob", "12", "sure"]) == false)
        #expect(reads(["edit", "bob", "12", "-"]) == true)
    }
}
