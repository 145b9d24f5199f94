import ArgumentParser
import Foundation

@main
struct Hush: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hush",
        abstract: "End-to-end encrypted messaging from the terminal.",
        subcommands: [
            InitCommand.self, RegisterCommand.self, WhoamiCommand.self, ProfileCommand.self, ContactCommand.self, GroupCommand.self, RequestsCommand.self,
            SendCommand.self, ReplyCommand.self, ReactCommand.self, EditCommand.self, DeleteCommand.self, DisappearCommand.self, SyncCommand.self, ChatsCommand.self, HistoryCommand.self, ChatCommand.self,
            ListenCommand.self, OutboxCommand.self, RetryCommand.self, SearchCommand.self, VerifyCommand.self,
            DaemonCommand.self, RPCCommand.self, PassphraseCommand.self, DoctorCommand.self, AuditCommand.self, RelayCommand.self,
            AttachmentsCommand.self, FetchCommand.self, BackupCommand.self, ExportCommand.self, DeviceCommand.self, VectorsCommand.self, DemoCommand.self, ExitCodesCommand.self,
        ]
    )

    /// Refuses a mistyped command with the closest ones before parsing.
    static func main() async {
        ClientLogHandler.bootstrap()
        // A command line the daemon parses itself goes there unparsed (most of a start is the parser).
        if let status = DaemonFastPath.run(Array(CommandLine.arguments.dropFirst())) { Foundation.exit(status) }
        if let mistyped = CommandSuggestions.mistyped(Array(CommandLine.arguments.dropFirst()), root: Hush.self) {
            printError(CommandSuggestions.message(word: mistyped.word, path: mistyped.path, suggestions: mistyped.suggestions))
            Foundation.exit(ExitStatus.usage.rawValue)
        }
        if let refusal = CommandSuggestions.unknownHelpTopic(Array(CommandLine.arguments.dropFirst()), root: Hush.self) {
            printError(refusal)
            Foundation.exit(ExitStatus.usage.rawValue)
        }
        if let negative = CommandSuggestions.negativeNumber(in: Array(CommandLine.arguments.dropFirst())) {
            do {
                _ = try Hush.parseAsRoot(Array(CommandLine.arguments.dropFirst()))
            } catch {
                // Only where the number was taken for an option: an option's negative value parses,
                // and its range check speaks for itself.
                let message = Hush.message(for: error)
                if message.contains("Missing expected argument") || message.contains("Missing value for") || message.contains("'\(negative)'") {
                    CommandOutput.current.write(.stderr, Hush.fullMessage(for: error) + "\n")
                    printNotice(CommandSuggestions.negativeNumberNote(negative))
                    Foundation.exit(Hush.exitCode(for: error).rawValue)
                }
            }
        }
        // A command on an account a daemon owns is handed to the daemon (no passphrase, one writer).
        if let status = DaemonForwarding.run(Array(CommandLine.arguments.dropFirst())) { Foundation.exit(status) }
        await main(nil)
    }

    @Flag(name: .long, help: "Print the versions of hush, its protocol, libsodium and SQLCipher.")
    var version = false

    func run() async throws {
        guard version else { throw CleanExit.helpRequest(self) }
        print(VersionReport.text)
    }
}
