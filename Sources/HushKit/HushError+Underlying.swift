import HushDatabase
import HushKeystore
import HushMessenger
import HushStore

extension HushError {
    /// The lower modules' errors in HushKit's terms: the cases an app can act
    /// on get a kind and words of their own (with a suggestion); the rest keep
    /// the lower module's description, which names no `hush` command.
    /// A relay that could not be used. Unreachable, its own words say it
    /// whole ("the relay could not be used: the relay could not be used
    /// right now" read as a stutter); otherwise they follow ours.
    init(relay failure: DeliveryFailure) {
        if case let .unavailable(reason) = failure {
            self.init(.relayUnavailable, reason: "the relay could not be used right now (\(reason))", suggestion: "check the URL and that it runs, then retry")
        } else {
            self.init(.relayUnavailable, reason: "the relay could not be used", suggestion: String(describing: failure))
        }
    }

    init(wrapping error: any Error) {
        switch error {
        case let error as HushError: self = error
        case let error as MessengerError: self.init(error)
        case let error as KeystoreError: self.init(error)
        case let error as DatabaseError: self.init(error)
        case let error as StoreError: self.init(error)
        case let error as DeliveryFailure: self.init(relay: error)
        default: self.init(.other, reason: String(describing: error))
        }
    }

    private init(_ error: MessengerError) {
        let reason = String(describing: error)
        switch error {
        case let .unknownContact(name):
            self.init(.notFound, reason: reason, subject: .contact(name))
        case .unknownConversation, .unknownMessage:
            self.init(.notFound, reason: reason, subject: Self.queuedSubject(error))
        case let .unknownAttachment(id):
            self.init(.notFound, reason: reason, subject: .attachment(AttachmentID(rawValue: id)))
        case let .unknownGroup(name):
            self.init(.notFound, reason: reason, subject: .group(name))
        case let .contactExists(name):
            self.init(.invalidContact, reason: "a contact named '\(name)' already exists with another address",
                      suggestion: "choose another name", subject: .contact(name))
        case let .addressIsContact(holder):
            self.init(.invalidContact, reason: "that address is already your contact '\(holder)'",
                      suggestion: "one person is one contact: write to '\(holder)', or check the address", subject: .contact(holder))
        case let .identityChanged(name):
            self.init(.identityChanged, reason: "the contact's identity key has changed, so sending is blocked",
                      suggestion: "compare the new safety number with them, then accept the new identity key", subject: .contact(name))
        case let .nothingToAccept(name):
            self.init(.invalidContact, reason: "'\(name)' has no changed identity key to accept", subject: .contact(name))
        case .notRegistered:
            self.init(.notRegistered, reason: "this account is not registered with a relay",
                      suggestion: "open it with a relay URL and register")
        case let .invalidAddress(reason):
            self.init(.invalidContact, reason: "invalid address: \(reason)")
        case .ownAddress:
            self.init(.invalidContact, reason: "that is your own address")
        case .invalidDisplayName:
            self.init(.invalidInput, reason: reason)
        case .noSuchMessage:
            self.init(.notFound, reason: reason, suggestion: "message ids are the ones a history lists for this account")
        case .invalidReaction, .invalidIdempotencyKey, .invalidDisappearingTimer, .alreadyDeleted:
            self.init(.invalidInput, reason: reason)
        case .notOwnMessage, .deletionWindowPassed:
            // The suggestion is in the reason: delete it here only.
            self.init(.invalidInput, reason: reason)
        case .notEditable:
            self.init(.invalidInput, reason: reason)
        case let .messageTooLong(limit):
            self.init(.invalidInput, reason: "the message is longer than \(limit) bytes", suggestion: "split it")
        case let .relay(failure):
            self.init(relay: failure)
        case let .requestNotAccepted(name):
            self.init(.notAccepted, reason: "the contact wrote first and the message request is not accepted",
                      suggestion: "accept the request to write back, or block the contact", subject: .contact(name))
        case let .contactBlocked(name):
            self.init(.blocked, reason: "the contact is blocked", suggestion: "accepting their request unblocks them", subject: .contact(name))
        case let .noRequest(name):
            self.init(.notFound, reason: "no message request from that contact", subject: .contact(name))
        case .ambiguousName:
            self.init(.invalidInput, reason: "that name is both a contact's and a group's")
        case let .attachmentUnavailable(reason), let .attachmentRejected(reason):
            self.init(.attachment, reason: reason)
        case let .groupRefused(reason):
            self.init(.group, reason: reason)
        case let .notGroupAdmin(group):
            self.init(.notAdmin, reason: reason, subject: .group(group))
        case .removingYourself:
            self.init(.group, reason: reason)
        case let .aloneInGroup(group):
            self.init(.group, reason: reason, subject: .group(group))
        case let .memberIdentityChanged(group, member):
            self.init(.identityChanged, reason: reason,
                      suggestion: "compare the member's new safety number and accept the change, or remove them from the group",
                      subject: .member(member, group: group))
        case let .storedAttachmentDamaged(id, damage):
            self.init(.damagedFile, reason: "the stored copy of the attachment is damaged (\(damage))", suggestion: "fetch it again",
                      subject: .attachment(AttachmentID(rawValue: id)))
        case let .attachmentNotUploaded(id):
            self.init(.notUploaded, reason: reason, subject: .attachment(AttachmentID(rawValue: id)))
        case let .awaitingAcceptance(reason):
            self.init(.notAccepted, reason: reason)
        case .deviceRevoked:
            self.init(.other, reason: reason,
                      suggestion: "write from another device of the account; to use this machine again, link a new home to the account (`hush init --link`)")
        case .homeReplaced:
            self.init(.homeReplaced, reason: reason)
        case .restoredNotRegistered:
            self.init(.notRegistered, reason: reason, suggestion: "register the restored home with its relay (its new sessions start then)")
        case .newerHomeRegistered:
            self.init(.homeReplaced, reason: reason,
                      suggestion: "use that home, or back it up and restore that backup; to cut it off and use this one anyway, "
                          + "run `hush backup sessions --replace-newer-home` (HushKit: `startMissingSessions(replacingNewerHome: true)`)")
        case let .protocolFailure(reason), let .missingLocalState(reason), let .awaitingGroupKey(reason):
            self.init(.other, reason: reason)
        }
    }

    /// An unknown outbox message names the request id that was asked for.
    private static func queuedSubject(_ error: MessengerError) -> Subject? {
        if case let .unknownMessage(id) = error { return .queuedMessage(id) }
        return nil
    }

    private init(_ error: StoreError) {
        switch error {
        case .notFound: self.init(.notFound, reason: String(describing: error))
        case .invalidArgument: self.init(.invalidInput, reason: String(describing: error))
        case .databaseMissing: self.init(.databaseMissing, reason: String(describing: error))
        case let .eventsPruned(_, pruned):
            self.init(.eventsPruned, reason: String(describing: error),
                      suggestion: "read the conversations and messages again, then replay the events after \(pruned)")
        }
    }

    private init(_ error: KeystoreError) {
        switch error {
        case .wrongPassphrase, .wrongApplicationKey:
            self.init(.wrongKey, reason: "the key does not open the keystore",
                      suggestion: "check the passphrase or application key, and that the keystore file was not modified")
        case .unlockedByApplicationKey:
            self.init(.wrongKey, reason: "this account is unlocked by an application key, not a passphrase",
                      suggestion: "open it with KeyProvider.applicationKey")
        case .unlockedByPassphrase:
            self.init(.wrongKey, reason: "this account is unlocked by a passphrase, not an application key",
                      suggestion: "open it with KeyProvider.passphrase")
        case let .applicationKeyWrongLength(found):
            self.init(.invalidInput, reason: "an application key has \(KeyProvider.applicationKeyLength) bytes, not \(found)",
                      suggestion: "make one with KeyProvider.newApplicationKey()")
        case .noIdentity:
            self.init(.noAccount, reason: "the directory holds no account yet", suggestion: "create one there")
        case .identityExists:
            self.init(.accountExists, reason: "the directory already holds an account",
                      suggestion: "open it, or choose another directory")
        case .badPermissions, .wrongOwner:
            self.init(.unsafePermissions, reason: String(describing: error))
        case .damaged:
            self.init(.damagedKeystore, reason: String(describing: error))
        case .newerVersion:
            self.init(.keystoreTooNew, reason: String(describing: error))
        case .passphraseUnavailable, .passphraseMismatch:
            self.init(.keyUnavailable, reason: String(describing: error))
        case .unknownCost:
            self.init(.invalidInput, reason: String(describing: error))
        case .io:
            self.init(.storage, reason: String(describing: error))
        }
    }

    private init(_ error: DatabaseError) {
        switch error.kind {
        case .wrongKeyOrNotADatabase, .notSQLCipher, .newerSchema, .corrupt:
            self.init(.databaseUnusable, reason: String(describing: error))
        case .diskFull, .ioFailure, .busy, .constraint, .other:
            self.init(.storage, reason: String(describing: error))
        }
    }
}

/// Runs `body`, turning whatever it throws into a `HushError`.
func translatingErrors<T>(_ body: () async throws -> T) async throws(HushError) -> T {
    do { return try await body() } catch { throw HushError(wrapping: error) }
}
