import Foundation

/// What a backup archive holds: written by `HushAccount.createBackup`,
/// checked by `verifyBackup`, restored by `restoreBackup`.
public struct BackupSummary: Sendable {
    /// The archive's path.
    public let path: String
    /// The address of the account the archive belongs to.
    public let address: String
    /// When the archive was made.
    public let createdAt: Date
    /// The number of rows of each table of the store in the archive, by table name.
    public let rowsByTable: [String: Int]
    /// The number of attachment files.
    public let files: Int
    /// The attachment files' bytes, in all.
    public let fileBytes: UInt64
    /// The archive's own size in bytes.
    public let archiveBytes: UInt64
    /// After a restore: the backup schedule the archive held, which was not
    /// restored (its folder was the old machine's). Set it again for this
    /// machine with `HushAccount.setBackupSchedule(_:)`. Nil otherwise.
    public let scheduleNotRestored: BackupSchedule?
    /// After `createBackup`: when another home of the account had replaced
    /// the one the archive was made in (docs/PROTOCOL.md §19.4), as that
    /// home knew it; nil otherwise. Such an archive holds a home the relay
    /// no longer serves, and restoring it registers the key again, which
    /// cuts off the home that replaced it.
    public let madeInReplacedHome: Date?

    /// The number of contacts.
    public var contacts: Int { rowsByTable["contacts"] ?? 0 }
    /// The number of one-to-one conversations.
    public var conversations: Int { rowsByTable["conversations"] ?? 0 }
    /// The number of messages, in every conversation and group.
    public var messages: Int { rowsByTable["messages"] ?? 0 }
    /// The number of groups.
    public var groups: Int { rowsByTable["groups"] ?? 0 }
    /// The number of messages waiting to be sent.
    public var pendingOutbox: Int { rowsByTable["outbox"] ?? 0 }
}
