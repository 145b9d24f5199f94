import ArgumentParser

/// `hush audit …`: show what is stored, to check it against the design.
struct AuditCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "audit",
        abstract: "Inspect what Hush stores.",
        subcommands: [AuditRelayCommand.self, AuditLocalCommand.self]
    )
}
