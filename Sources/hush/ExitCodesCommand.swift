import ArgumentParser

/// `hush exit-codes` (and `hush help exit-codes`): the exit codes scripts can branch on.
struct ExitCodesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "exit-codes",
        abstract: "List the exit codes of hush and what each means.",
        discussion: ExitStatus.table.map { "\($0.code)  \($0.meaning)" }.joined(separator: "\n"))

    @Flag(name: .long, help: "Print machine-readable JSON on stdout.") var json = false

    func run() throws {
        if json {
            try printJSON(["exitCodes": ExitStatus.table.map { ["code": Int($0.code), "meaning": $0.meaning] as [String: Any] }])
        } else {
            for (code, meaning) in ExitStatus.table { print("\(code)\t\(meaning)") }
        }
    }
}
