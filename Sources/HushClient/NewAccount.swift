/// What `Account.create` made: everything a front end shows about a new identity.
public struct NewAccount {
    public let home: String
    public let address: String
    /// The identity key in groups of four hex digits.
    public let fingerprint: String
    public let database: String
    /// The Argon2id cost the keystore was sealed with.
    public let kdf: String
    /// Why registering with the relay failed, when a relay was given and it did.
    public let registrationError: (any Error)?
}
