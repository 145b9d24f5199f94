import ArgumentParser
import Testing
@testable import hush

/// Every command names itself. Without a `commandName`, ArgumentParser derives
/// the name with `String(describing:)` of the command's type, and each such
/// call scans every protocol conformance in the binary: with fifteen unnamed
/// commands that was two thirds of `hush`'s start (perf, release build), paid
/// by every one-shot command, the daemon's forwarded ones included.
@Suite struct CommandNameTests {
    @Test func everyCommandInTheTreeHasAnExplicitName() {
        var unnamed: [String] = []
        var pending: [(path: String, command: any ParsableCommand.Type)] = [("hush", Hush.self)]
        while let (path, command) = pending.popLast() {
            let configuration = command.configuration
            if configuration.commandName == nil { unnamed.append("\(path) > \(command)") }
            let name = configuration.commandName ?? "\(command)"
            for sub in configuration.subcommands { pending.append(("\(path) \(name)", sub)) }
        }
        #expect(unnamed.isEmpty, "commands without commandName: \(unnamed)")
    }
}
