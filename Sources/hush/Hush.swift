import ArgumentParser

@main
struct Hush: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hush",
        abstract: "End-to-end encrypted messaging from the terminal.",
        subcommands: [InitCommand.self, PassphraseCommand.self, DoctorCommand.self, VectorsCommand.self, RelayCommand.self, AuditCommand.self]
    )
}
