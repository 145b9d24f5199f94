import HushMessenger

extension MessengerError: UserFacingError {
    public var exitCode: Int32 {
        let status: ExitStatus
        switch self {
        case .identityChanged: status = .identityChanged
        case .unknownContact, .contactExists, .nothingToAccept, .invalidAddress, .ownAddress,
             .requestNotAccepted, .contactBlocked, .noRequest, .unknownGroup, .unknownConversation, .ambiguousName: status = .contactProblem
        case .relay, .notRegistered: status = .relayUnavailable
        case .invalidDisplayName: status = .usage
        case .messageTooLong, .protocolFailure, .missingLocalState, .awaitingGroupKey, .awaitingAcceptance, .unknownMessage, .unknownAttachment,
             .attachmentUnavailable, .attachmentRejected, .groupRefused, .notGroupAdmin, .memberIdentityChanged, .removingYourself, .aloneInGroup,
             .storedAttachmentDamaged, .attachmentNotUploaded: status = .failure
        }
        return status.rawValue
    }

    /// The pipeline's words with the `hush` command that helps.
    public var userMessage: String {
        switch self {
        case let .unknownContact(name):
            return "no contact named '\(name)': add one with `hush contact add \(name) ADDRESS`"
        case let .contactExists(name):
            return "a contact named '\(name)' already exists with another address; if their identity changed, the new key is now pending: compare safety numbers with `hush verify \(name)`, then `hush contact accept \(name)`"
        case let .identityChanged(name):
            return "\(name)'s identity key has changed, so sending is blocked: compare the new safety number with `hush verify \(name)`, then run `hush contact accept \(name)`"
        case .notRegistered:
            return "this identity is not registered with a relay: run `hush init --relay URL` (or `hush register --relay URL`)"
        case let .requestNotAccepted(name):
            return "\(name) wrote to you first and the message request is not accepted: nothing is sent to them until you run `hush requests accept \(name)` (or block them with `hush requests block \(name)`)"
        case let .contactBlocked(name):
            return "\(name) is blocked: their messages are dropped and nothing is sent to them; `hush requests accept \(name)` unblocks"
        case let .noRequest(name):
            return "no message request from '\(name)': `hush requests` lists them"
        case let .unknownAttachment(id):
            return "no attachment with id \(id): `hush attachments` lists them"
        case let .unknownGroup(name):
            return "no group named '\(name)': `hush group list` lists them, `hush group create NAME MEMBER…` makes one"
        case let .ambiguousName(name):
            return "'\(name)' is both a contact and a group: write contact:\(name) or group:\(name)"
        case let .unknownMessage(id):
            return "no outbox message with id \(id): see `hush outbox`"
        case let .awaitingAcceptance(reason):
            return reason + " (`hush requests`)"
        case let .notGroupAdmin(group):
            return "only an admin of '\(group)' can change it; `hush group info \(group)` lists its admins"
        case let .removingYourself(group):
            return "to leave '\(group)', use `hush group leave \(group)`"
        case let .aloneInGroup(group):
            return "you are the only member of '\(group)': add someone with `hush group add \(group) NAME`"
        case let .memberIdentityChanged(group, member):
            return "\(member)'s identity key has changed, so sending to '\(group)' is blocked: compare safety numbers with `hush verify \(member)` and `hush contact accept \(member)`, or remove them with `hush group remove \(group) \(member)`"
        case let .storedAttachmentDamaged(id, reason):
            return "the stored copy of the attachment is damaged (\(reason)); `hush fetch \(id)` downloads it again"
        case let .attachmentNotUploaded(id):
            return "attachment \(id) is not uploaded yet: `hush sync` or `hush retry` sends it"
        default:
            return description
        }
    }
}
