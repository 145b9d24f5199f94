import HushDatabase
import HushKeystore
import HushMessenger
import HushStore

extension HushError {
    /// The lower modules' errors in HushKit's terms: the cases an app can act
    /// on get a kind and words of their own (with a suggestion); the rest keep
    /// the lower module's description, which names no `hush` command.
    init(wrapping error: any Error) {
        switch error {
        case let error as HushError: self = error
        case let error as MessengerError: self.init(error)
        case let error as KeystoreError: self.init(error)
        case let error as DatabaseError: self.init(error)
        case let error as StoreError: self.init(error)
        case let error as DeliveryFailure: self.init(.relayUnavailable, reason: "the relay could not be used", suggestion: String(describing: error))
        default: self.init(.other, reason: String(describing: error))
        }
    }

    private init(_ error: MessengerError) {
        switch error {
        case let .unknownContact(name):
            self.init(.notFound, reason: "no contact \(name)")
        case .unknownConversation, .unknownMessage, .unknownAttachment, .unknownGroup:
            self.init(.notFound, reason: String(describing: error))
        case .contactExists:
            self.init(.invalidContact, reason: "a contact with that name already exists with another address",
                      suggestion: "if their identity changed, compare safety numbers, then accept the new identity key")
        case .identityChanged:
            self.init(.identityChanged, reason: "the contact's identity key has changed, so sending is blocked",
                      suggestion: "compare the new safety number with them, then accept the new identity key")
        case .nothingToAccept:
            self.init(.invalidInput, reason: "the contact has no changed identity key to accept")
        case .notRegistered:
            self.init(.notRegistered, reason: "this account is not registered with a relay",
                      suggestion: "open it with a relay URL and register")
        case let .invalidAddress(reason):
            self.init(.invalidContact, reason: "invalid address: \(reason)")
        case .ownAddress:
            self.init(.invalidContact, reason: "that is the account's own address")
        case .invalidDisplayName:
            self.init(.invalidInput, reason: String(describing: error))
        case let .messageTooLong(limit):
            self.init(.invalidInput, reason: "the message is longer than \(limit) bytes", suggestion: "split it")
        case let .relay(failure):
            self.init(.relayUnavailable, reason: "the relay could not be used", suggestion: String(describing: failure))
        case .requestNotAccepted:
            self.init(.notAccepted, reason: "the contact wrote first and the message request is not accepted",
                      suggestion: "accept the request to write back, or block the contact")
        case .contactBlocked:
            self.init(.notAccepted, reason: "the contact is blocked", suggestion: "accepting their request unblocks them")
        case .noRequest:
            self.init(.notFound, reason: "no message request from that contact")
        case .ambiguousName:
            self.init(.invalidInput, reason: "that name is both a contact's and a group's")
        case let .attachmentUnavailable(reason), let .attachmentRejected(reason):
            self.init(.attachment, reason: reason)
        case let .groupRefused(reason):
            self.init(.group, reason: reason)
        case .notGroupAdmin, .removingYourself, .aloneInGroup:
            self.init(.group, reason: String(describing: error))
        case .memberIdentityChanged:
            self.init(.identityChanged, reason: String(describing: error),
                      suggestion: "compare the member's new safety number and accept the change, or remove them from the group")
        case .storedAttachmentDamaged, .attachmentNotUploaded:
            self.init(.attachment, reason: String(describing: error))
        case let .protocolFailure(reason), let .missingLocalState(reason), let .awaitingGroupKey(reason), let .awaitingAcceptance(reason):
            self.init(.other, reason: reason)
        }
    }

    private init(_ error: StoreError) {
        switch error {
        case .notFound: self.init(.notFound, reason: String(describing: error))
        case .invalidArgument: self.init(.invalidInput, reason: String(describing: error))
        case .databaseMissing: self.init(.databaseMissing, reason: String(describing: error))
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
