import Foundation
import HushRelayAPI
import Logging

/// One setting of the relay: its key in the configuration file, what it
/// means (the comment `--print-defaults` writes), its type and range, and
/// where it lives in `RelaySettings`. The table is the single list of
/// settings: the file reader, the variables and `--print-defaults` all use it,
/// so none can be forgotten by one of them.
public struct RelaySetting: Sendable {
    public let key: String
    public let help: String
    public let kind: Kind
    let get: @Sendable (RelaySettings) -> RelaySettingValue
    let set: @Sendable (inout RelaySettings, RelaySettingValue) -> Void

    public var environmentName: String {
        "HUSH_RELAY_" + key.uppercased().map { $0 == "." || $0 == "-" ? "_" : $0 }.map(String.init).joined()
    }

    public enum Kind: Sendable {
        case int(ClosedRange<Int>)
        case double(ClosedRange<Double>)
        case string(allowsEmpty: Bool, check: @Sendable (String) -> String?)
        case origins
        case bool

        var allowsEmpty: Bool { if case let .string(allowsEmpty, _) = self { allowsEmpty } else { false } }

        /// Text (a variable, a flag) as a value of this kind.
        func parse(_ text: String) -> RelaySettingValue {
            switch self {
            case .int: Int(text).map(RelaySettingValue.int) ?? .text(text)
            case .double: Double(text).map(RelaySettingValue.double) ?? .text(text)
            case .string: .string(text)
            case .origins: .strings(text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
            case .bool: ["true", "false"].contains(text) ? .string(text) : .text(text)
            }
        }

        func check(_ value: RelaySettingValue, key: String, source: String) throws(RelaySettingsError) -> RelaySettingValue {
            switch (self, value) {
            case let (.int(range), .int(number)):
                guard range.contains(number) else { throw .impossible(key: key, why: "\(number) is not within \(range.lowerBound)…\(range.upperBound)", source: source) }
                return value
            case let (.double(range), .double(number)):
                guard range.contains(number) else { throw .impossible(key: key, why: "\(number) is not within \(range.lowerBound)…\(range.upperBound)", source: source) }
                return value
            case let (.double, .int(number)):
                return try check(.double(Double(number)), key: key, source: source)
            case let (.string(allowsEmpty, check), .string(text)):
                if text.isEmpty && allowsEmpty { return value }
                if text.isEmpty { throw .impossible(key: key, why: "must not be empty", source: source) }
                if let why = check(text) { throw .impossible(key: key, why: why, source: source) }
                return value
            case (.bool, .string("true")), (.bool, .string("false")):
                return value
            case let (.origins, .strings(urls)):
                for url in urls {
                    do { _ = try RelayOrigin(url: url) } catch { throw .impossible(key: key, why: "\(url): \(error)", source: source) }
                }
                return value
            default:
                throw .wrongType(key: key, expected: expected, source: source)
            }
        }

        var expected: String {
            switch self {
            case let .int(range): "a whole number \(range.lowerBound)…\(range.upperBound)"
            case let .double(range): "a number \(range.lowerBound)…\(range.upperBound)"
            case .string: "text"
            case .origins: "a list of http:// or https:// URLs"
            case .bool: "true or false"
            }
        }
    }
}
