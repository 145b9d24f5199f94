/// What `HushAccount.revokeDevice` did (docs/PROTOCOL.md §20.14), for the
/// user to see: a group that did not get a new key stays readable by the
/// revoked device until its next change.
public struct DeviceRevocation: Sendable {
    /// The device, as the new list names it (revoked).
    public let device: LinkedDevice
    /// The account's new recovery key (the revoked device holds the old
    /// one). Show it once: the user must write it down.
    public let recoveryKey: RecoveryKey
    /// How many contacts the new list was sealed for; nil when that could
    /// not be done now (it goes before the next thing sealed to each).
    public let contactsTold: Int?
    /// Groups this account administers that got a new key (the same
    /// members, a new epoch and secret); nil when the groups could not be
    /// read at all (none was rekeyed).
    public let groupsRekeyed: Int?
    /// Groups this account is in but does not administer whose admin was
    /// asked for a new key; nil when the requests could not be sealed (or
    /// the groups could not be read).
    public let adminsAsked: Int?
    /// Groups this account administers that could not be given a new key,
    /// by name (each in its own transaction: the others were rekeyed).
    public let groupsNotRekeyed: [String]
}
