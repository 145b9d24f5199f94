import HushCrypto
import HushKeystore

/// The named Argon2id levels a user (or a test, or the demo) may choose for
/// a new keystore: `--kdf-cost NAME` or `HUSH_KDF_COST=NAME`. Unlocking
/// always uses the costs stored in the keystore header.
public enum KeyDerivationCost {
    public static let environmentVariable = "HUSH_KDF_COST"
    /// The level for new keystores when nothing is chosen.
    public static let defaultName = "moderate"
    public static let names = ["interactive", "moderate", "sensitive"]

    public static func named(_ name: String) throws(KeystoreError) -> Argon2id.Cost {
        switch name.lowercased() {
        case "interactive": return .interactive
        case "moderate": return .moderate
        case "sensitive": return .sensitive
        default: throw .unknownCost(name)
        }
    }

    /// An explicit option wins over the environment, which wins over the default.
    public static func resolve(option: String?, environment: [String: String]) throws(KeystoreError) -> Argon2id.Cost {
        if let option, !option.isEmpty { return try named(option) }
        if let value = environment[environmentVariable], !value.isEmpty { return try named(value) }
        return try named(defaultName)
    }
}
