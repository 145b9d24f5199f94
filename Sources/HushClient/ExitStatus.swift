/// The exit codes of `hush`, one per kind of failure a script may want to
/// tell apart. README.md lists them; keep the two in step.
public enum ExitStatus: Int32, Sendable {
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
    /// Bad command-line usage (ArgumentParser's own code for validation errors).
    case usage = 64
}
