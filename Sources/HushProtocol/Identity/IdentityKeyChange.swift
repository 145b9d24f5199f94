/// What a client learns when it compares the identity key it has on record
/// for a contact with the one a bundle or message presents. On `.changed`
/// the safety number changes, sending to the contact MUST stop, and the user
/// must accept the new key (after comparing the new safety number).
public enum IdentityKeyChange: Sendable, Equatable {
    /// No key on record: trust on first use (the address already fixes the key).
    case firstUse
    case unchanged
    case changed(previous: IdentityKey, presented: IdentityKey)

    /// Compares in constant time.
    public static func check(known: IdentityKey?, presented: IdentityKey) -> IdentityKeyChange {
        guard let known else { return .firstUse }
        return known.constantTimeEquals(presented) ? .unchanged : .changed(previous: known, presented: presented)
    }

    /// True when the client may go on sending without asking the user.
    public var maySend: Bool {
        if case .changed = self { return false }
        return true
    }
}
