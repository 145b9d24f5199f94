import HushCrypto
import HushKeystore

/// How an account's keystore is sealed, as its clear-text header says
/// (read without unlocking it).
public struct KeystoreDetails: Sendable, Equatable {
    /// The keystore's format version.
    public let formatVersion: Int
    /// Whether a passphrase opens it (otherwise an application key does).
    public let isPassphraseProtected: Bool
    /// How the sealing key is derived, in words: the Argon2id costs
    /// ("Argon2id(passes: 3, memory: 262144 KiB)") or "application key (HKDF-SHA256)".
    public let keyDerivation: String
    /// The Argon2id cost of a passphrase keystore.
    let cost: Argon2id.Cost?

    init(_ header: KeystoreHeader) {
        formatVersion = Int(header.version)
        keyDerivation = header.keyDerivation.description
        if case let .argon2id(cost) = header.keyDerivation {
            self.cost = cost
            isPassphraseProtected = true
        } else {
            cost = nil
            isPassphraseProtected = false
        }
    }
}
