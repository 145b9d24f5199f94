/// The one error HushKit throws: what kind of failure it is (to branch on),
/// what went wrong (`reason`) and what the user or the app can do about it
/// (`suggestion`), both in words fit to show a person.
///
/// Reasons never carry message text, keys or the passphrase.
public struct HushError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Kinds of failure an app may want to tell apart.
    public enum Kind: String, Sendable, CaseIterable {
        /// The directory holds no account yet.
        case noAccount
        /// `create` found an account in the directory already.
        case accountExists
        /// The passphrase or application key does not open the keystore
        /// (or the keystore was modified: the two cannot be told apart).
        case wrongKey
        /// The keystore is damaged or not a Hush keystore: restore it from a backup.
        case damagedKeystore
        /// The keystore was written by a newer version of HushKit.
        case keystoreTooNew
        /// The database is missing or empty while the keystore is there:
        /// restore it from a backup, or start over with
        /// `HushAccount.openWithNewDatabase(in:keys:relayURL:)`.
        case databaseMissing
        /// The database cannot be used: damaged, another account's, from a
        /// newer version, or not encrypted.
        case databaseUnusable
        /// There is no passphrase or key to use (an empty passphrase, or the
        /// app could not obtain one), or two entries of a new one differ.
        case keyUnavailable
        /// The directory or a file in it is open to other users, or owned by another.
        case unsafePermissions
        /// No contact, conversation, message or attachment has that id.
        case notFound
        /// The contact's identity key changed: sending stops until the app accepts the new key.
        case identityChanged
        /// The contact wrote first and the request is not accepted.
        case notAccepted
        /// The contact is blocked: nothing is sent to them until their request is accepted again.
        case blocked
        /// An address that is malformed, the account's own, or already another contact's.
        case invalidContact
        /// The account has no relay, or is not registered with it.
        case notRegistered
        /// The relay could not be reached or refused the request.
        case relayUnavailable
        /// Input the operation cannot take (too long, empty, out of range).
        case invalidInput
        /// A file could not be sent or fetched.
        case attachment
        /// A group operation that cannot be done as asked.
        case group
        /// Only an admin of the group may make that change.
        case notAdmin
        /// The stored copy of a received file is damaged: fetch it again.
        case damagedFile
        /// The file is not uploaded yet: a sync or a retry sends it.
        case notUploaded
        /// The local disk or database failed (full, read-only, in use).
        case storage
        /// Another process owns the account's directory (a daemon, or
        /// commands while a daemon would start): its reason names the holder.
        case homeInUse
        /// A replay of events after a seq the account no longer keeps (the
        /// log was pruned past it): read the state again, then resume from
        /// the seq the reason names (`HushAccount.eventRecords(after:)`).
        case eventsPruned
        /// Another home registered this account's key with the relay after
        /// this one (a backup restored elsewhere, or a copy of the directory):
        /// this home fetches and sends nothing more. Its history stays readable.
        case homeReplaced
        /// Anything else.
        case other
    }

    /// What kind of failure it is.
    public let kind: Kind
    /// What went wrong.
    public let reason: String
    /// What to do about it, when something can be done.
    public let suggestion: String?
    /// What the error is about, when it is about one contact, group, file or
    /// queued message: an app can point at it (and a front end that names
    /// things, as a command line does, can say which).
    public let subject: Subject?

    /// The thing an error is about, by the name the account knows it by.
    public enum Subject: Sendable, Equatable {
        /// A contact, by its name in this account.
        case contact(String)
        /// A group, by its name in this account.
        case group(String)
        /// A member of a group (a contact's name, or the member's address when not a contact).
        case member(String, group: String)
        /// A file.
        case attachment(AttachmentID)
        /// A queued message, by the request id (or its start) that was asked for.
        case queuedMessage(String)
        /// A message of the history, by its id (one that is not in the conversation asked about).
        case message(MessageID)
    }

    /// An error of `kind` (for an app's own layers and tests).
    public init(_ kind: Kind, reason: String, suggestion: String? = nil, subject: Subject? = nil) {
        self.kind = kind
        self.reason = reason
        self.suggestion = suggestion
        self.subject = subject
    }

    /// The reason, then the suggestion.
    public var description: String {
        suggestion.map { "\(reason): \($0)" } ?? reason
    }
}
