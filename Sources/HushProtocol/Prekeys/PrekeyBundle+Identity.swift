extension PrekeyBundle {
    /// Verifies every signature and that the bundle belongs to the identity
    /// the contact's address names. Initiators MUST call this (or
    /// `Session.initiate`, which does) before using any key of the bundle.
    public func verify(for address: HushAddress) throws(ProtocolError) {
        guard identityKey.constantTimeEquals(address.identityKey) else { throw .identityMismatch }
        try verify()
    }
}
