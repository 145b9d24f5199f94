import ArgumentParser
import Foundation
import HushKit

struct ExportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Export conversations, and their downloaded files, to a readable folder (plaintext).",
        discussion: """
            Writes every conversation (one-to-one and groups; not message requests or blocked \
            contacts), or the one NAME stands for, into DIR, a folder that does not exist yet or is \
            empty: --format json writes hush-export.json (its schema is in docs/EXPORT.md), --format \
            markdown one contact-NAME.md or group-NAME.md per conversation, to read. Files you sent and \
            received files that were downloaded (`hush fetch ID`) are copied into DIR/files/ under safe \
            names made from the attachment's id; the others are listed as "not downloaded" (a file sent \
            before Hush kept its sender's copy: "not kept on this device"). Nothing is downloaded, \
            nothing is marked read.

            THE EXPORT IS NOT ENCRYPTED: anyone who can read DIR reads your messages. Its folders \
            are made 0700 and its files 0600; keep it on an encrypted disk, and delete it when done. \
            For a copy Hush can restore, use `hush backup create` (encrypted).

            The export is written into a folder beside DIR and takes DIR's name only when complete: \
            a failure leaves nothing behind, and a DIR that is not empty is refused before anything \
            is written.

            Examples:
              hush export --to ~/hush-export
              hush export bob --format markdown --to ~/bob-export
            """)

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case json, markdown
    }

    @OptionGroup var global: GlobalOptions
    @Argument(help: "Only this contact's or group's conversation (contact:NAME or group:NAME when both exist).") var name: String?
    @Option(help: "json (one document for programs) or markdown (one file per conversation, to read).") var format: Format = .json
    @Option(help: ArgumentHelp("The folder to create (or an empty one).", valueName: "DIR")) var to: String

    func run() async throws {
        try await reportingErrors {
            // Refused before the account opens (no passphrase asked for nothing), and again at the rename.
            let destination = try ExportFolder.refusingNonEmpty(CommandContext.resolve(to))
            let account = try await global.openAccount()
            var reader = ConversationExport(account: account)
            let conversations = try await reader.conversations(named: name)
            let folder = try ExportFolder(destination: destination)
            do {
                let files = try await write(conversations, account: account, into: folder)
                try folder.commit()
                let messages = conversations.reduce(0) { $0 + $1.messages.count }
                if global.json {
                    try printJSON(["exportedTo": destination, "format": format.rawValue, "conversations": conversations.count,
                                   "messages": messages, "files": files])
                } else {
                    print("Exported \(conversations.count) conversation(s), \(messages) message(s) and \(files) file(s) to \(destination)")
                    print("It is not encrypted: keep it safe, and delete it when you no longer need it.")
                }
            } catch {
                folder.abandon()
                throw error
            }
        }
    }

    /// Writes the files, then the document(s); returns how many files were copied.
    private func write(_ conversations: [ExportedConversation], account: HushAccount, into folder: ExportFolder) async throws -> Int {
        let exportedAt = Date()
        var files = 0
        for message in conversations.flatMap(\.messages) where message.fileIsHere {
            guard let attachment = message.attachment else { continue }
            if files == 0 { try folder.makeFolder("files") }
            // Decrypted from the copy kept here, checked against the sender's digest as `hush fetch --out` does.
            _ = try await account.fetch(attachment.id, to: folder.path(ExportNames.file(id: attachment.id.rawValue, peerName: attachment.fileName)))
            files += 1
        }
        switch format {
        case .json:
            try folder.write(try ExportJSON.document(conversations, account: account, exportedAt: exportedAt), to: ExportJSON.fileName)
        case .markdown:
            for (conversation, fileName) in zip(conversations, ExportNames.markdownFiles(conversations)) {
                let text = MarkdownExport.document(conversation, account: account.address, exportedAt: exportedAt)
                try folder.write(Data(text.utf8), to: fileName)
            }
        }
        return files
    }
}
