import ArgumentParser

/// "Did you mean": a word where a subcommand belongs that is none of them,
/// but close to one (`hush sned`, `hush contacts`, `hush group lst`), is
/// refused with the closest names, by edit distance, before parsing (which
/// would only say "unexpected argument").
enum CommandSuggestions {
    /// The closest subcommands when `arguments` (without the program name)
    /// name a subcommand that does not exist but is close to one: the
    /// mistyped word, the command path before it, and the suggestions.
    static func mistyped(_ arguments: [String], root: any ParsableCommand.Type)
        -> (word: String, path: [String], suggestions: [String])? {
        var command = root
        var path = [root._commandName]
        for word in arguments {
            let subcommands = command.configuration.subcommands
            guard !subcommands.isEmpty, !word.hasPrefix("-"), word != "help" else { return nil }
            if let next = subcommands.first(where: { names(of: $0).contains(word) }) {
                command = next
                path.append(next._commandName)
                continue
            }
            let candidates = subcommands.flatMap(names(of:))
            let scored = candidates.map { (name: $0, distance: distance(word, $0)) }
            guard let best = scored.map(\.distance).min(), best <= maximumDistance(for: word) else { return nil }
            return (word, path, scored.filter { $0.distance == best }.map(\.name))
        }
        return nil
    }

    /// The refusal of `hush help WORD…` when a word names no subcommand
    /// (swift-argument-parser would print the root's help and exit 0, so a
    /// script asking for help on a command that does not exist would not
    /// notice): what was not found, the closest names if any, and where the
    /// list is. Nil when every word names a subcommand, or for no `help`.
    static func unknownHelpTopic(_ arguments: [String], root: any ParsableCommand.Type) -> String? {
        guard arguments.first == "help" else { return nil }
        var command = root
        var path = [root._commandName]
        for word in arguments.dropFirst() where !word.hasPrefix("-") {
            let subcommands = command.configuration.subcommands
            // A command without subcommands: the rest is its arguments, which help ignores.
            guard !subcommands.isEmpty else { return nil }
            if let next = subcommands.first(where: { names(of: $0).contains(word) }) {
                command = next
                path.append(next._commandName)
                continue
            }
            let scored = subcommands.flatMap(names(of:)).map { (name: $0, distance: distance(word, $0)) }
            if let best = scored.map(\.distance).min(), best <= maximumDistance(for: word) {
                return message(word: word, path: path, suggestions: scored.filter { $0.distance == best }.map(\.name))
            }
            return "`\(word)` is not a `\(path.joined(separator: " "))` command, so there is no help for it. "
                + "`\(path.joined(separator: " ")) --help` lists them."
        }
        return nil
    }

    /// One or two edits for short words, up to a third of a longer word.
    static func maximumDistance(for word: String) -> Int { max(2, word.count / 3) }

    private static func names(of command: any ParsableCommand.Type) -> [String] {
        [command._commandName] + command.configuration.aliases
    }

    /// Edits (insert, delete, replace, swap two neighbours) from `a` to `b`:
    /// `sned` is one swap from `send`.
    static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a.lowercased()), b = Array(b.lowercased())
        if a.isEmpty || b.isEmpty { return max(a.count, b.count) }
        var table = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { table[i][0] = i }
        for j in 0...b.count { table[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                table[i][j] = min(table[i - 1][j] + 1, table[i][j - 1] + 1, table[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    table[i][j] = min(table[i][j], table[i - 2][j - 2] + 1)
                }
            }
        }
        return table[a.count][b.count]
    }

    /// The message: what was not understood, what it may have meant, where the list is.
    static func message(word: String, path: [String], suggestions: [String]) -> String {
        let quoted = suggestions.map { "`\((path + [$0]).joined(separator: " "))`" }
        let options = quoted.count == 1 ? quoted[0] : quoted.dropLast().joined(separator: ", ") + " or " + quoted.last!
        return "`\(word)` is not a `\(path.joined(separator: " "))` command. Did you mean \(options)? "
            + "`\(path.joined(separator: " ")) --help` lists them."
    }

    /// The first argument that is a negative number (`-1`, `-2.5`): the
    /// parser reads it as an option, so `hush delete bob -1` said only that
    /// the id was missing. Nil when there is none.
    static func negativeNumber(in arguments: [String]) -> String? {
        arguments.first { $0.count > 1 && $0.hasPrefix("-") && $0.dropFirst().allSatisfy { $0.isNumber || $0 == "." } }
    }

    /// What follows the parser's message when `word` (a negative number) was
    /// among the arguments of a command line it refused.
    static func negativeNumberNote(_ word: String) -> String {
        "`\(word)` was read as an option, not as a value: no id, count or position Hush takes is negative. "
            + "A value that starts with a dash goes after `--` (`hush send bob -- -1` sends the text \"-1\")."
    }
}
