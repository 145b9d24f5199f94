import HushKit

/// A failure the command line itself finds (a name that means two things,
/// a check before calling HushKit), with its exit code and words.
struct CommandError: Error, CustomStringConvertible {
    let status: ExitStatus
    let message: String

    init(_ status: ExitStatus, _ message: String) {
        self.status = status
        self.message = message
    }

    var description: String { message }
}

extension HushError {
    /// HushKit's reasons for an account that simply has no relay registration.
    static let plainlyUnregistered: Set<String> = ["this account is not registered with a relay", "this account has no relay"]

    /// The exit code a script branches on and the line a person reads: HushKit's
    /// reason, with the `hush` command that helps where there is one. The
    /// account's own kinds (keystore, database, permissions) are worded by
    /// `lifecycleReport`.
    var terminalReport: (status: ExitStatus, message: String) {
        if let report = lifecycleReport { return report }
        switch (kind, subject) {
        case let (.notFound, .contact(name)?):
            return (.contactProblem, "no contact named '\(name)': add one with `hush contact add \(name) ADDRESS`")
        case let (.notFound, .group(name)?):
            return (.contactProblem, "no group named '\(name)': `hush group list` lists them, `hush group create NAME MEMBER…` makes one")
        case let (.notFound, .attachment(id)?):
            return (.failure, "no attachment with id \(id): `hush attachments` lists them")
        case let (.notFound, .queuedMessage(id)?):
            return (.failure, "no outbox message with id \(id): see `hush outbox`")
        case let (.notFound, .message(id)?):
            return (.failure, "no message with id \(id) in that conversation: `hush history NAME` shows the ids in brackets")
        case (.notFound, _):
            // Exit code 21 is for contacts (the subjects above); a missing
            // archive, device or message id is any other failure.
            return (.failure, description)
        case (.invalidContact, _):
            return (.contactProblem, description)
        case let (.identityChanged, .contact(name)?):
            return (.identityChanged, "\(name)'s identity key has changed, so sending is blocked: compare the new safety number with `hush verify \(name)`, then run `hush contact accept \(name)`")
        case let (.identityChanged, .member(member, group)?):
            return (.failure, "\(member)'s identity key has changed, so sending to '\(group)' is blocked: compare safety numbers with `hush verify \(member)` and `hush contact accept \(member)`, or remove them with `hush group remove \(group) \(member)`")
        case (.identityChanged, _):
            return (.identityChanged, description)
        case let (.notAccepted, .contact(name)?):
            return (.contactProblem, "\(name) wrote to you first and the message request is not accepted: nothing is sent to them until you run `hush requests accept \(name)` (or block them with `hush requests block \(name)`)")
        case (.notAccepted, _):
            return (.failure, reason + " (`hush requests`)")
        case let (.blocked, .contact(name)?):
            return (.contactProblem, "\(name) is blocked: their messages are dropped and nothing is sent to them; `hush requests accept \(name)` unblocks")
        case (.blocked, _):
            return (.contactProblem, description)
        case (.homeReplaced, _):
            // (A daemon hands the words on already said: not said twice.)
            let still = " (this home's history and `hush export` still work)"
            return (.homeReplaced, description.hasSuffix(still) ? description : description + still)
        case (.notRegistered, _) where reason.hasPrefix("this home was restored from a backup"):
            return (.relayUnavailable, reason + ": run `hush backup sessions` when the relay is reachable")
        case (.notRegistered, _) where Self.plainlyUnregistered.contains(reason):
            return (.relayUnavailable, "this identity is not registered with a relay: run `hush init --relay URL` (or `hush register --relay URL`)")
        case (.notRegistered, _):
            // A reason of its own (a linked device's home without its device key, a link or a
            // revocation with no relay) says what to do better than the hint above.
            return (.relayUnavailable, description)
        case (.relayUnavailable, _):
            return (.relayUnavailable, description)
        case let (.notAdmin, .group(group)?):
            return (.failure, "only an admin of '\(group)' can change it; `hush group info \(group)` lists its admins")
        case let (.group, .group(group)?):
            return (.failure, "you are the only member of '\(group)': add someone with `hush group add \(group) NAME`")
        case let (.damagedFile, .attachment(id)?):
            return (.failure, "\(reason); `hush fetch \(id)` downloads it again")
        case let (.notUploaded, .attachment(id)?):
            return (.failure, "attachment \(id) is not uploaded yet: `hush sync` or `hush retry` sends it")
        default:
            return (.failure, description)
        }
    }
}
