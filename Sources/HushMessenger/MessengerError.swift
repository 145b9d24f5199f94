import Foundation
import HushProtocol

/// Errors of the pipeline, each with what the user can do about it.
public enum MessengerError: Error, Sendable, Equatable, CustomStringConvertible {
    case unknownContact(String)
    case contactExists(name: String)
    /// The address given for a new name (or as a contact's new identity
    /// key) is already the identity of another contact, `holder`.
    case addressIsContact(holder: String)
    /// The contact's identity key changed; sending stays blocked until accepted.
    case identityChanged(name: String)
    case nothingToAccept(name: String)
    case notRegistered
    case invalidAddress(String)
    case ownAddress
    case messageTooLong(limit: Int)
    case relay(DeliveryFailure)
    case protocolFailure(String)
    /// State this device should hold is missing (a session, a private
    /// prekey): the cause is on our side, so an envelope failing for it is
    /// kept at the relay and tried again, never acknowledged.
    case missingLocalState(String)
    /// A group message or key arrived before what opens it (docs/PROTOCOL.md
    /// §18.3): kept at the relay, tried again by every sync.
    case awaitingGroupKey(String)
    /// A group message or key for an invitation that waits with its
    /// sender's message request: kept at the relay until the user accepts
    /// (`hush requests accept`), and opened by the next sync after that.
    case awaitingAcceptance(String)
    case unknownMessage(String)
    /// No message with that store id (a reply or reaction needs one stored here).
    case noSuchMessage(Int64)
    /// A reaction's emoji `ReactionEmoji` refuses.
    case invalidReaction(limit: Int)
    /// An edit this account may not make (docs/PROTOCOL.md §10.6): not its
    /// own text, past the window, or past the number of edits; says which.
    case notEditable(String)
    /// A send's idempotency key is empty or longer than `limit` bytes.
    case invalidIdempotencyKey(limit: Int)
    /// Deleting for everyone a message someone else wrote (§10.7).
    case notOwnMessage(Int64)
    /// Deleting for everyone a message sent longer ago than the window (§10.7).
    case deletionWindowPassed(hours: Int)
    /// The message was deleted (or expired) already.
    case alreadyDeleted(Int64)
    /// A disappearing timer beyond what the content can carry.
    case invalidDisappearingTimer(maxSeconds: UInt32)
    /// The contact wrote first and the user has not accepted the request yet.
    case requestNotAccepted(name: String)
    case contactBlocked(name: String)
    /// `requests accept|block` named a contact that is no request.
    case noRequest(name: String)
    case unknownAttachment(Int64)
    /// The attachment cannot be fetched or sent; the reason says what to do.
    case attachmentUnavailable(String)
    /// The blob failed its checks (a chunk, its length, its digest), or a local file could not be written.
    case attachmentRejected(String)
    case unknownGroup(String)
    /// No conversation has this store id (it was deleted, or never existed).
    case unknownConversation(Int64)
    /// A group operation that cannot be done as asked; the reason says why and what to do.
    case groupRefused(String)
    /// A name that is both a contact and a group.
    case ambiguousName(String)

    /// A display name must be 1 to `limit` bytes of UTF-8.
    case invalidDisplayName(limit: Int)
    /// Only an admin may change the group.
    case notGroupAdmin(group: String)
    /// Removing oneself from a group is leaving it.
    case removingYourself(group: String)
    /// The group has no member but us to send to.
    case aloneInGroup(group: String)
    /// A member's identity key changed: sending to the group stops until it is accepted or they are removed.
    case memberIdentityChanged(group: String, member: String)
    /// The stored copy of a received file no longer verifies; it was dropped, so fetching downloads it again.
    case storedAttachmentDamaged(id: Int64, reason: String)
    /// A file being sent is not uploaded yet (the next flush of the outbox uploads it).
    case attachmentNotUploaded(id: Int64)
    /// This device is revoked in the account's device list it holds
    /// (docs/PROTOCOL.md §20.14; `revokedAt`, milliseconds since 1970):
    /// contacts set aside what it sends, so it sends nothing more.
    case deviceRevoked(revokedAt: UInt64)
    /// Another home registered this key with the relay after this one did
    /// (`at`, the relay's registration time, ms): a backup restored elsewhere,
    /// or a copy of this home. This home uses the relay no more
    /// (docs/PROTOCOL.md §19.4); `unconfirmedSent` messages it sent since
    /// then have no receipt and may not have reached their recipients.
    case homeReplaced(at: Int64, unconfirmedSent: Int)
    /// A home restored from a backup that has not registered with the relay
    /// yet: it must, before it fetches or sends (docs/PROTOCOL.md §19.4).
    case restoredNotRegistered
    /// A restored home about to register found the relay holding a
    /// registration of the key made after its archive (`at`, ms): a newer
    /// home, which registering would cut off, and whose messages since are
    /// not in the archive (docs/PROTOCOL.md §19.4). Not registered.
    case newerHomeRegistered(at: Int64, archiveMadeAt: Int64)

    /// What went wrong, in words for any front end: no command names (the
    /// command line adds its own, see `HushError.terminalReport` in Sources/hush).
    public var description: String {
        switch self {
        case let .unknownContact(name):
            return "no contact named '\(name)'"
        case let .contactExists(name):
            return "a contact named '\(name)' already exists with another address: choose another name"
        case let .addressIsContact(holder):
            return "that address is already your contact '\(holder)': one person is one contact"
        case let .identityChanged(name):
            return "\(name)'s identity key has changed, so sending is blocked until the new safety number is compared and the change accepted"
        case let .nothingToAccept(name):
            return "\(name) has no changed identity key to accept"
        case .notRegistered:
            return "this identity is not registered with a relay"
        case let .invalidAddress(reason):
            return "invalid address: \(reason)"
        case .ownAddress:
            return "that is your own address"
        case let .messageTooLong(limit):
            return "the message is longer than \(limit) bytes: split it"
        case let .relay(failure):
            return "the relay could not be used: \(failure)"
        case let .protocolFailure(reason), let .missingLocalState(reason), let .awaitingGroupKey(reason), let .awaitingAcceptance(reason):
            return reason
        case let .requestNotAccepted(name):
            return "\(name) wrote to you first and the message request is not accepted: nothing is sent to them until it is accepted"
        case let .contactBlocked(name):
            return "\(name) is blocked: their messages are dropped and nothing is sent to them until their request is accepted"
        case let .noRequest(name):
            return "no message request from '\(name)'"
        case let .unknownAttachment(id):
            return "no attachment with id \(id)"
        case let .attachmentUnavailable(reason), let .attachmentRejected(reason), let .groupRefused(reason):
            return reason
        case let .unknownGroup(name):
            return "no group named '\(name)'"
        case let .ambiguousName(name):
            return "'\(name)' is both a contact and a group"
        case let .unknownConversation(id):
            return "no conversation with id \(id): it was deleted, or the id is from another account"
        case let .unknownMessage(id):
            return "no outbox message with id \(id)"
        case let .noSuchMessage(id):
            return "no message with id \(id) is stored here"
        case let .invalidReaction(limit):
            return "a reaction must be one emoji (one character, at most \(limit) bytes, no control characters)"
        case let .notEditable(reason):
            return reason
        case let .invalidIdempotencyKey(limit):
            return "an idempotency key must be 1 to \(limit) bytes of text"
        case let .notOwnMessage(id):
            return "message \(id) was written by someone else: only its author can delete it for everyone (delete it here only, without --for-everyone)"
        case let .deletionWindowPassed(hours):
            return "a message can be deleted for everyone only within \(hours) hours of sending it (delete it here only, without --for-everyone)"
        case let .alreadyDeleted(id):
            return "message \(id) is deleted already"
        case let .invalidDisappearingTimer(maxSeconds):
            return "a disappearing timer is at most \(maxSeconds) seconds"
        case let .invalidDisplayName(limit):
            return "a display name must be 1 to \(limit) bytes of text"
        case let .notGroupAdmin(group):
            return "only an admin of '\(group)' can change it"
        case let .removingYourself(group):
            return "removing yourself from '\(group)' is leaving it"
        case let .aloneInGroup(group):
            return "you are the only member of '\(group)': add someone first"
        case let .memberIdentityChanged(group, member):
            return "\(member)'s identity key has changed, so sending to '\(group)' is blocked until the change is accepted or \(member) is removed"
        case let .storedAttachmentDamaged(id, reason):
            return "the stored copy of attachment \(id) is damaged (\(reason)); fetching it again downloads it"
        case let .attachmentNotUploaded(id):
            return "attachment \(id) is not uploaded yet: the next sync or retry sends it"
        case let .deviceRevoked(revokedAt):
            let date = Date(timeIntervalSince1970: Double(revokedAt) / 1000).formatted(.iso8601)
            return "this device was revoked from its account (the account's device list says so since \(date)): contacts set aside what it sends"
        case let .homeReplaced(at, unconfirmedSent):
            let date = Date(timeIntervalSince1970: Double(at) / 1000).formatted(.iso8601)
            let sent = unconfirmedSent == 0 ? "" : "; \(unconfirmedSent) message(s) sent from here since then have no receipt and may not have arrived: send them again from the other home"
            return "another home registered this account with the relay at \(date) (a backup restored elsewhere, or a copy of this home): "
                + "the relay now delivers the account's messages there, so this home fetches and sends nothing more" + sent
                + ". Use the other home; if you did not restore or copy it, someone holds your recovery key or this home's keystore and passphrase"
        case .restoredNotRegistered:
            return "this home was restored from a backup and has not registered with the relay yet; it fetches and sends nothing until it has"
        case let .newerHomeRegistered(at, archiveMadeAt):
            let date = { (time: Int64) in Date(timeIntervalSince1970: Double(time) / 1000).formatted(.iso8601) }
            return "another home registered this account with the relay at \(date(at)), and this backup (made \(date(archiveMadeAt))) "
                + "is older than that home, or was made in a home it had replaced: registering this restored home would cut that one off, "
                + "and what it received since is not in this backup, so this home was not registered"
        }
    }
}

extension DeliveryFailure: CustomStringConvertible {
    /// How the description of `.unavailable` begins: the outbox keeps it as a
    /// request's last error, by which a reconnect finds what waited for the relay.
    public static let unavailableDescriptionPrefix = "the relay could not be used right now "
    public var description: String {
        switch self {
        case .unauthorized: return "the relay refused our credentials"
        case let .loginRefused(reason): return "the relay refused the login: \(reason)"
        // Status 0: refused on this side before any request (a relay URL that cannot be used).
        case let .rejected(0, reason): return reason
        case let .rejected(status, code): return "the relay rejected the request (HTTP \(status), \(code))"
        case .tooLarge: return "the request is larger than the relay accepts"
        case let .rateLimited(after): return "the relay is rate-limiting us" + (after.map { "; retry in \(($0 + 999) / 1000) s" } ?? "")
        case let .unavailable(reason): return Self.unavailableDescriptionPrefix + "(\(reason)); check the URL and that it runs, then retry"
        }
    }
}
