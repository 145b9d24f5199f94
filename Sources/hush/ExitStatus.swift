/// The exit codes of `hush`, one per kind of failure a script may want to
/// tell apart. `hush exit-codes` prints `ExitStatus.table`, and README.md
/// carries the same table (HushCLITests checks the two agree).
enum ExitStatus: Int32, Sendable, CaseIterable {
    case failure = 1
    case noIdentity = 10
    case wrongPassphrase = 11
    case keystoreDamaged = 12
    case keystoreTooNew = 13
    case badPermissions = 14
    case identityExists = 15
    case passphraseUnavailable = 16
    case databaseUnusable = 17
    case doctorFoundProblems = 18
    /// A contact's identity key changed: sending is blocked until accepted.
    case identityChanged = 20
    /// No such contact, or a contact/address problem the user must fix.
    case contactProblem = 21
    /// The relay could not be reached or refused the request.
    case relayUnavailable = 22
    /// A safety number did not match (`hush verify --compare`).
    case safetyNumberMismatch = 23
    /// Some envelopes could not be decrypted and were set aside.
    case quarantined = 24
    /// The message is safe in the outbox but the relay could not be reached yet.
    case queued = 25
    /// Another process owns the data directory (see `hush daemon`).
    case homeInUse = 26
    /// Another home registered this identity with the relay since (a restore elsewhere, a copied home).
    case homeReplaced = 27
    /// Bad command-line usage (ArgumentParser's own code for validation errors).
    case usage = 64

    /// What the code means, for people and scripts' authors.
    var meaning: String {
        switch self {
        case .failure: return "any other failure (the message on stderr says what)"
        case .noIdentity: return "no identity in the data directory yet: run `hush init`"
        case .wrongPassphrase: return "wrong passphrase (or a modified keystore: the two cannot be told apart)"
        case .keystoreDamaged: return "the keystore is damaged or not a Hush keystore"
        case .keystoreTooNew: return "the keystore was written by a newer Hush"
        case .badPermissions: return "the data directory or a file in it is open to other users, or owned by another user"
        case .identityExists: return "`hush init` would overwrite an existing identity (use `--force`)"
        case .passphraseUnavailable: return "no passphrase available (no terminal, empty or unreadable file), or the two entries differ"
        case .databaseUnusable: return "the database cannot be used (missing or emptied, wrong key or another identity's, damaged, newer schema, or not SQLCipher)"
        case .doctorFoundProblems: return "`hush doctor` found a problem"
        case .identityChanged: return "a contact's identity key changed: sending is blocked until `hush contact accept NAME`"
        case .contactProblem: return "no such contact, a malformed address, a contact/address conflict, or a message request not accepted yet (or a blocked contact)"
        case .relayUnavailable: return "the relay refused the request (a `hush send` refused with 429 stays in the outbox and is retried; other refusals are not; "
            + "a 429 asking for 2 s or less is waited out first, up to three times), or a relay command could not reach it; a relay that "
            + "does not know this device's key (its registration failed at `hush init` or at a link) refuses the login, and the error "
            + "says to run `hush register`"
        case .safetyNumberMismatch: return "`hush verify --compare`: the safety numbers do not match"
        case .quarantined: return "`hush sync`: some envelopes could not be decrypted and were set aside, or could not be opened for a cause on this device and stay at the relay"
        case .queued: return "`hush send` (and `hush chat` without a terminal): the message is queued in the outbox because the relay could not be reached; `hush sync` or `hush retry` delivers it"
        case .homeInUse: return "another process owns the data directory: a daemon that does not answer on its socket, a running daemon for a command that needs the account to itself (`doctor`, `audit local`, `passphrase`, `device link`, `device revoke`: stop the daemon first), or (for `hush daemon`) commands still using it"
        case .homeReplaced: return "another home registered this identity with the relay since this one did (a backup restored elsewhere, or a copy of this home): this home fetches and sends nothing more"
        case .usage: return "bad command-line usage"
        }
    }

    /// Every code with its meaning, 0 first, one `code  meaning` line each.
    static var table: [(code: Int32, meaning: String)] {
        [(0, "success")] + allCases.map { ($0.rawValue, $0.meaning) }
    }
}
