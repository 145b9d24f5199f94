import HushKit

/// The named Argon2id levels a user (or a test, or the demo) may choose for
/// a new keystore: `--kdf-cost NAME` or `HUSH_KDF_COST=NAME`. Unlocking
/// always uses the costs stored in the keystore header.
enum KeyDerivationCost {
    static let environmentVariable = "HUSH_KDF_COST"
    /// The level for new keystores when nothing is chosen.
    static let defaultName = "moderate"
    static let names = ["interactive", "moderate", "sensitive"]

    static func named(_ name: String) throws(HushError) -> PassphraseCost {
        switch name.lowercased() {
        case "interactive": return .interactive
        case "moderate": return .moderate
        case "sensitive": return .sensitive
        default: throw HushError(.invalidInput, reason: "unknown key-derivation cost '\(name)': use interactive, moderate or sensitive")
        }
    }

    /// An explicit option wins over the environment, which wins over the default.
    static func resolve(option: String?, environment: [String: String]) throws(HushError) -> PassphraseCost {
        if let option, !option.isEmpty { return try named(option) }
        if let value = environment[environmentVariable], !value.isEmpty { return try named(value) }
        return try named(defaultName)
    }
}
