import ArgumentParser
import HushClient

@main
struct Hush: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hush",
        abstract: "End-to-end encrypted messaging from the terminal.",
        subcommands: [
            InitCommand.self, RegisterCommand.self, WhoamiCommand.self, ContactCommand.self, GroupCommand.self, RequestsCommand.self,
            SendCommand.self, SyncCommand.self, ChatsCommand.self, HistoryCommand.self, ChatCommand.self,
            ListenCommand.self, OutboxCommand.self, RetryCommand.self, SearchCommand.self, VerifyCommand.self,
            PassphraseCommand.self, DoctorCommand.self, AuditCommand.self, RelayCommand.self,
            AttachmentsCommand.self, FetchCommand.self, VectorsCommand.self, DemoCommand.self, ExitCodesCommand.self,
        ]
    )

    @Flag(name: .long, help: "Print the versions of hush, its protocol, libsodium and SQLCipher.")
    var version = false

    func run() async throws {
        guard version else { throw CleanExit.helpRequest(self) }
        print(VersionReport.text)
    }
}
