import ArgumentParser
import Foundation
import HushKit
import HushTerminal

/// What a command run by the daemon for a client (`DaemonCommandRunner`)
/// uses in place of its own process's: the daemon's open account, the
/// client's working directory and terminal.
struct CommandContext: Sendable {
    let account: HushAccount
    let home: String
    /// The client's working directory: relative paths it typed are resolved against it.
    let workingDirectory: String
    let stderrIsTerminal: Bool
    /// Colour as the client's standard output and NO_COLOR call for, never
    /// as the daemon's own (a daemon started in a terminal wrote escape codes
    /// into its clients' pipes).
    let style: TerminalStyle

    @TaskLocal static var current: CommandContext?

    /// `path` as the client meant it: relative ones against its working directory.
    static func resolve(_ path: String) -> String {
        guard let current, !path.hasPrefix("/") else { return path }
        if path == "~" || path.hasPrefix("~/") { return path }
        return current.workingDirectory + "/" + path
    }
}

/// The commands a daemon runs for its clients: every one that works on the
/// account through HushKit and needs no terminal of its own. Chat and listen
/// run in their own process as the daemon's clients (its methods and events);
/// doctor, passphrase, init and audit local are refused with exit 26 while a
/// daemon owns the account.
protocol RunsThroughDaemon: AsyncParsableCommand {
    var global: GlobalOptions { get }
    /// What the command would read from standard input, read by the client
    /// before it hands the command over (nil: it reads none).
    func standardInputForDaemon() -> Data?
}

extension RunsThroughDaemon {
    func standardInputForDaemon() -> Data? { nil }
}

extension WhoamiCommand: RunsThroughDaemon {}
extension RegisterCommand: RunsThroughDaemon {}
extension ProfileCommand: RunsThroughDaemon {}
extension ContactCommand.Add: RunsThroughDaemon {}
extension ContactCommand.List: RunsThroughDaemon {}
extension ContactCommand.Remove: RunsThroughDaemon {}
extension ContactCommand.Accept: RunsThroughDaemon {}
extension GroupCommand.Create: RunsThroughDaemon {}
extension GroupCommand.Add: RunsThroughDaemon {}
extension GroupCommand.Remove: RunsThroughDaemon {}
extension GroupCommand.Promote: RunsThroughDaemon {}
extension GroupCommand.Rename: RunsThroughDaemon {}
extension GroupCommand.Leave: RunsThroughDaemon {}
extension GroupCommand.List: RunsThroughDaemon {}
extension GroupCommand.Info: RunsThroughDaemon {}
extension RequestsCommand.List: RunsThroughDaemon {}
extension RequestsCommand.Accept: RunsThroughDaemon {}
extension RequestsCommand.Block: RunsThroughDaemon {}
extension SyncCommand: RunsThroughDaemon {}
extension ChatsCommand: RunsThroughDaemon {}
extension HistoryCommand: RunsThroughDaemon {}
extension SearchCommand: RunsThroughDaemon {}
extension OutboxCommand: RunsThroughDaemon {}
extension RetryCommand: RunsThroughDaemon {}
extension VerifyCommand: RunsThroughDaemon {}
extension AttachmentsCommand: RunsThroughDaemon {}
extension FetchCommand: RunsThroughDaemon {}
extension ExportCommand: RunsThroughDaemon {}
extension ReactCommand: RunsThroughDaemon {}
extension DeleteCommand: RunsThroughDaemon {}
extension DisappearCommand: RunsThroughDaemon {}
extension BackupSessionsCommand: RunsThroughDaemon {}
extension BackupCreateCommand: RunsThroughDaemon {}
extension BackupScheduleCommand: RunsThroughDaemon {}

extension SendCommand: RunsThroughDaemon {
    func standardInputForDaemon() -> Data? {
        file == nil && CommandInput.readsStandardInput(text) ? CommandInput.readAll() : nil
    }
}

extension ReplyCommand: RunsThroughDaemon {
    func standardInputForDaemon() -> Data? { CommandInput.readsStandardInput(text) ? CommandInput.readAll() : nil }
}

extension EditCommand: RunsThroughDaemon {
    func standardInputForDaemon() -> Data? { CommandInput.readsStandardInput(text) ? CommandInput.readAll() : nil }
}
