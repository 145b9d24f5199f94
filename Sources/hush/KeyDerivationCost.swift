@_spi(Testing) import HushKit

/// The named Argon2id levels a user (or a test, or the demo) may choose for
/// a new keystore: `--kdf-cost NAME` or `HUSH_KDF_COST=NAME`. Unlocking
/// always uses the costs stored in the keystore header.
enum KeyDerivationCost: Equatable {
    case level(PassphraseCost)
    /// Argon2id at the format's floor, for the process tests only: a debug
    /// build accepts the name, a release build refuses it as unknown.
    case insecureTestFloor

    static let environmentVariable = "HUSH_KDF_COST"
    /// The level for new keystores when nothing is chosen.
    static let defaultName = "moderate"
    static let names = ["interactive", "moderate", "sensitive"]
    /// Not among `names`: never offered in help or errors.
    static let testFloorName = "insecure-test-floor"

    static func named(_ name: String) throws(HushError) -> KeyDerivationCost {
        switch name.lowercased() {
        case "interactive": return .level(.interactive)
        case "moderate": return .level(.moderate)
        case "sensitive": return .level(.sensitive)
        #if DEBUG
        case testFloorName: return .insecureTestFloor
        #endif
        default: throw HushError(.invalidInput, reason: "unknown key-derivation cost '\(name)': use interactive, moderate or sensitive")
        }
    }

    /// An explicit option wins over the environment, which wins over the default.
    static func resolve(option: String?, environment: [String: String]) throws(HushError) -> KeyDerivationCost {
        if let option, !option.isEmpty { return try named(option) }
        if let value = environment[environmentVariable], !value.isEmpty { return try named(value) }
        return try named(defaultName)
    }

    /// The keys of a new keystore sealed under `passphrase` at this cost.
    func keys(passphrase: [UInt8]) -> KeyProvider {
        switch self {
        case let .level(cost): return KeyProvider.passphrase(bytes: passphrase, cost: cost)
        case .insecureTestFloor: return KeyProvider.passphraseAtTestFloor(bytes: passphrase)
        }
    }
}
