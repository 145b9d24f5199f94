import ArgumentParser

/// `hush relay …`: run the relay server.
struct RelayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "relay",
        abstract: "Run a Hush relay.",
        subcommands: [RelayServeCommand.self, RelayConfigCommand.self]
    )
}
