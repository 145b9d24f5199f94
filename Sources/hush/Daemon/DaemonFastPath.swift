import Foundation
import HushKit

/// The short way to the daemon: a command line handed over without being
/// parsed here.
///
/// Parsing a command line with ArgumentParser is most of a `hush` process's
/// own work (perf, release build: its first use of each option's generic
/// type looks up protocol conformances across the whole binary), and the
/// daemon parses the same line again anyway, with the same parser, the same
/// messages and the same exit codes (`DaemonCommandRunner.run`). So a line
/// whose command words name a command the daemon runs, and that this client
/// can read safely without the parser, goes straight over; anything else
/// (`--home`, help, `--`, an unknown option before the text of `send`, no
/// daemon) takes the parsed way (`DaemonForwarding`), which is always right.
enum DaemonFastPath {
    /// The words of every command that runs through the daemon
    /// (`RunsThroughDaemon`; `CommandNameTests` keeps the two in step).
    static let commands: Set<[String]> = [
        ["whoami"], ["register"], ["profile"], ["sync"], ["chats"], ["history"], ["search"], ["outbox"], ["retry"], ["verify"],
        ["attachments"], ["fetch"], ["export"], ["react"], ["delete"], ["disappear"], ["send"], ["reply"], ["edit"],
        ["contact", "add"], ["contact", "list"], ["contact", "remove"], ["contact", "accept"],
        ["group", "create"], ["group", "add"], ["group", "remove"], ["group", "promote"], ["group", "rename"], ["group", "leave"],
        ["group", "list"], ["group", "info"],
        ["requests", "list"], ["requests", "accept"], ["requests", "block"],
        ["backup", "sessions"], ["backup", "create"], ["backup", "schedule"],
    ]

    /// A command that reads its text from standard input when the text
    /// argument is absent or `-` (`CommandInput.text`): the client must know
    /// whether it does, and so must tell options that take a value from flags.
    struct TextFromInput: Equatable {
        /// Where the text is among the positional arguments (0 = the first).
        let position: Int
        /// A positional before the text that must be a whole number (the
        /// message id of `reply` and `edit`): otherwise the parser refuses
        /// the line, before any input is read.
        let numberPosition: Int?
        /// Long options that take a value (`--file PATH` or `--file=PATH`).
        let valueOptions: Set<String>
        /// Long flags (no value).
        let flags: Set<String>
        /// An option that, when given, means no text is read at all (`send --file`).
        let replacingText: String?
    }

    static let textFromInput: [[String]: TextFromInput] = [
        ["send"]: TextFromInput(position: 1, numberPosition: nil, valueOptions: ["home", "passphrase-file", "file"], flags: ["json"],
                                replacingText: "file"),
        ["reply"]: TextFromInput(position: 2, numberPosition: 1, valueOptions: ["home", "passphrase-file"], flags: ["json"], replacingText: nil),
        ["edit"]: TextFromInput(position: 2, numberPosition: 1, valueOptions: ["home", "passphrase-file"], flags: ["json"], replacingText: nil),
    ]

    /// What the line asks of the daemon, or nil when it must be parsed first.
    struct Plan: Equatable {
        let words: [String]
        /// Whether the command reads its text from standard input.
        let readsInput: Bool
    }

    /// The plan for `arguments` (what follows `hush`), or nil.
    static func plan(_ arguments: [String]) -> Plan? {
        let words = commands.contains(Array(arguments.prefix(2))) ? Array(arguments.prefix(2))
            : commands.contains(Array(arguments.prefix(1))) ? Array(arguments.prefix(1)) : nil
        guard let words else { return nil }
        let rest = arguments.dropFirst(words.count)
        // What only the parser may judge: another data directory, help, the
        // end of options, ArgumentParser's own flags.
        for argument in rest {
            if argument == "--" || argument == "-h" || argument.hasPrefix("--home") || argument.hasPrefix("--help")
                || argument.hasPrefix("--generate-completion-script") || argument.hasPrefix("--experimental") || argument == "--version" {
                return nil
            }
        }
        guard let text = textFromInput[words] else { return Plan(words: words, readsInput: false) }
        var positionals: [String] = []
        var replaced = false
        var index = rest.startIndex
        while index < rest.endIndex {
            let argument = rest[index]
            index += 1
            if argument.hasPrefix("--") {
                let name = String(argument.dropFirst(2).prefix { $0 != "=" })
                if text.valueOptions.contains(name) {
                    if !argument.contains("=") {
                        guard index < rest.endIndex else { return nil }
                        index += 1
                    }
                    if name == text.replacingText { replaced = true }
                } else if !text.flags.contains(name) {
                    return nil
                }
            } else if argument.hasPrefix("-") && argument != "-" {
                return nil
            } else {
                positionals.append(argument)
            }
        }
        // Without the arguments before the text the line is wrong: the parser says so, before any input is read.
        guard positionals.count >= text.position else { return nil }
        if let number = text.numberPosition, Int64(positionals[number]) == nil { return nil }
        let textArgument = positionals.count > text.position ? positionals[text.position] : nil
        return Plan(words: words, readsInput: !replaced && CommandInput.readsStandardInput(textArgument))
    }

    /// Hands `arguments` to the daemon of the account named by HUSH_HOME (or
    /// ~/.hush) when it may go unparsed and such a daemon answers; returns
    /// the exit code, or nil to take the parsed way.
    static func run(_ arguments: [String], environment: [String: String] = ProcessInfo.processInfo.environment) -> Int32? {
        guard let plan = plan(arguments),
              let home = (try? HomeDirectory.resolve(home: nil, environment: environment)).map(HomeDirectory.absolute) else { return nil }
        return DaemonForwarding.forward(arguments, home: home, input: { plan.readsInput ? CommandInput.readAll() : nil })
    }
}
