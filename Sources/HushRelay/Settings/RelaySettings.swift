import HushRelayAPI
import Logging

/// Everything `hush relay serve` runs with: the relay's configuration plus
/// what only the command uses (log level, database URL). Filled from the
/// defaults, then the configuration file, then `HUSH_RELAY_*` variables, then
/// flags; each value is checked where it enters, so an error names its key
/// and where it came from.
public struct RelaySettings {
    public var configuration = RelayConfiguration()
    public var logLevel = "info"
    /// Empty: the embedded SQLCipher database in the data directory.
    public var database = ""
    public var keyFile = ""
    public var retentionDays = 30
    /// `HOST:PORT` of the metrics endpoint; empty: none.
    public var metricsListen = ""
    public var tlsCertificate = ""
    public var tlsKey = ""
    public var tlsSelfSigned = false
    /// `RelayTLS.MinimumVersion`'s raw value, checked where it is set.
    public var tlsMinimumVersion = RelayTLS.MinimumVersion.tls12.rawValue

    /// `127.0.0.1:9090` → ("127.0.0.1", 9090); `[::1]:9090` → ("::1", 9090).
    public static func hostAndPort(_ text: String) -> (host: String, port: Int)? {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]), (0...65_535).contains(port) else { return nil }
        var host = String(text[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        return host.isEmpty ? nil : (host, port)
    }

    public init() {
        configuration.retentionSeconds = Int64(retentionDays) * 86_400
    }

    /// Sets `key` to `value` after checking its type and range; `source` says
    /// where the value came from (`relay.yaml line 4`, `$HUSH_RELAY_PORT`, `--port`).
    public mutating func set(_ key: String, _ value: RelaySettingValue, from source: String) throws(RelaySettingsError) {
        guard let setting = RelaySetting.named[key] else { throw .unknownKey(key, source: source) }
        let checked = try setting.kind.check(value, key: key, source: source)
        setting.set(&self, checked)
        if key == "retention-days" { configuration.retentionSeconds = Int64(retentionDays) * 86_400 }
    }

    /// Applies every `HUSH_RELAY_<KEY>` variable (dots and dashes as
    /// underscores: `connections.idle-timeout` → `HUSH_RELAY_CONNECTIONS_IDLE_TIMEOUT`).
    /// A `HUSH_RELAY_` variable that names no setting (a misspelt
    /// `HUSH_RELAY_IDLE_TIMEOUT`) is refused as an unknown key in a file is:
    /// ignored, it left the operator believing a limit was set.
    public mutating func applyEnvironment(_ environment: [String: String]) throws(RelaySettingsError) {
        let known = Set(RelaySetting.all.map(\.environmentName))
        if let unknown = environment.keys.filter({ $0.hasPrefix("HUSH_RELAY_") && !known.contains($0) }).sorted().first {
            throw .unknownKey(String(unknown.dropFirst("HUSH_RELAY_".count)).lowercased().replacingOccurrences(of: "_", with: "-"),
                              source: "$\(unknown)")
        }
        for setting in RelaySetting.all {
            let name = setting.environmentName
            guard let text = environment[name], !text.isEmpty || setting.kind.allowsEmpty else { continue }
            try set(setting.key, setting.kind.parse(text), from: "$\(name)")
        }
    }
}

/// A value as read from a file, a variable or a flag, before checking.
public enum RelaySettingValue: Equatable, Sendable {
    case int(Int)
    case double(Double)
    case string(String)
    case strings([String])
    /// Text that should have been a number: reported with the expected type.
    case text(String)
}

public enum RelaySettingsError: Error, Equatable, CustomStringConvertible {
    case unknownKey(String, source: String)
    case wrongType(key: String, expected: String, source: String)
    case impossible(key: String, why: String, source: String)
    case unreadable(String)

    public var description: String {
        switch self {
        case let .unknownKey(key, source):
            "unknown setting '\(key)' (\(source)): `hush relay config --print-defaults` lists every setting"
        case let .wrongType(key, expected, source): "setting '\(key)' (\(source)) must be \(expected)"
        case let .impossible(key, why, source): "setting '\(key)' (\(source)): \(why)"
        case let .unreadable(what): what
        }
    }
}
