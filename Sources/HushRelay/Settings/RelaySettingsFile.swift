import Foundation
import Yams

/// The relay's configuration file: YAML (comments, no quoting for most
/// values), read with Yams into nodes and walked against `RelaySetting.all`,
/// so an unknown key, a wrong type or an impossible value is an error naming
/// the key and its line, and the relay does not start.
public enum RelaySettingsFile {
    public static func apply(contentsOf path: String, to settings: inout RelaySettings) throws(RelaySettingsError) {
        let text: String
        do { text = try String(contentsOfFile: path, encoding: .utf8) } catch {
            throw .unreadable("cannot read the configuration file \(path): \(error.localizedDescription)")
        }
        try apply(yaml: text, file: (path as NSString).lastPathComponent, to: &settings)
    }

    public static func apply(yaml: String, file: String, to settings: inout RelaySettings) throws(RelaySettingsError) {
        let root: Node?
        do { root = try Yams.compose(yaml: yaml) } catch {
            throw .unreadable("\(file) is not valid YAML: \(error)")
        }
        guard let root else { return }  // an empty file: the defaults
        guard let mapping = root.mapping else { throw .unreadable("\(file) must be a mapping of settings (key: value)") }
        try walk(mapping, prefix: "", file: file, into: &settings)
    }

    private static func walk(_ mapping: Node.Mapping, prefix: String, file: String, into settings: inout RelaySettings) throws(RelaySettingsError) {
        for (keyNode, valueNode) in mapping {
            let key = prefix + (keyNode.string ?? "")
            let source = "\(file) line \(keyNode.mark?.line ?? 0)"
            if prefix.isEmpty, RelaySetting.sections.contains(key) {
                guard let inner = valueNode.mapping else { throw .wrongType(key: key, expected: "a section of settings", source: source) }
                try walk(inner, prefix: key + ".", file: file, into: &settings)
                continue
            }
            guard let setting = RelaySetting.named[key] else { throw .unknownKey(key, source: source) }
            try settings.set(key, value(valueNode, for: setting.kind), from: source)
        }
    }

    /// A node as the value a setting's kind expects; anything else stays
    /// text or a list, for `check` to report as the wrong type.
    private static func value(_ node: Node, for kind: RelaySetting.Kind) -> RelaySettingValue {
        if let sequence = node.sequence { return .strings(sequence.map { $0.string ?? "" }) }
        guard let scalar = node.scalar else { return .text("a section") }
        let text = scalar.string
        switch kind {
        case .int: return Int(text).map(RelaySettingValue.int) ?? .text(text)
        case .double: return Double(text).map(RelaySettingValue.double) ?? .text(text)
        case .string: return .string(["~", "null"].contains(text) && scalar.style == .plain ? "" : text)
        case .origins: return text.isEmpty || text == "[]" ? .strings([]) : .text(text)
        case .bool: return ["true", "false"].contains(text) && scalar.style == .plain ? .string(text) : .text(text)
        }
    }

    /// The defaults as a commented file (`hush relay config --print-defaults`).
    public static func render(_ settings: RelaySettings) -> String {
        var lines = ["# hush relay configuration (hush relay serve --config FILE).",
                     "# Every setting with its default; flags and HUSH_RELAY_<KEY> variables",
                     "# (dots and dashes as underscores) override what is written here."]
        var section = ""
        for setting in RelaySetting.all {
            let parts = setting.key.split(separator: ".").map(String.init)
            let indent = parts.count == 2 ? "  " : ""
            if parts.count == 2, parts[0] != section {
                section = parts[0]
                lines += ["", "\(section):"]
            } else if parts.count == 1 {
                lines.append("")
            }
            lines.append("\(indent)# \(setting.help)")
            lines.append("\(indent)\(parts.last!): \(yaml(setting.get(settings)))")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    private static func yaml(_ value: RelaySettingValue) -> String {
        switch value {
        case let .int(number): String(number)
        case let .double(number): number == number.rounded() && abs(number) < 1e15 ? String(Int(number)) : String(number)
        case let .string(text) where text == "true" || text == "false": text
        case let .string(text), let .text(text): quoted(text)
        case let .strings(list): "[" + list.map(quoted).joined(separator: ", ") + "]"
        }
    }

    /// JSON-style double quotes: valid YAML whatever the text holds.
    private static func quoted(_ text: String) -> String {
        let data = (try? JSONEncoder().encode(text)) ?? Data("\"\"".utf8)
        return String(decoding: data, as: UTF8.self)
    }
}
