import Foundation

/// A JSON value, Sendable, for the local API's parameters and results.
public enum JSONValue: Sendable, Equatable, Codable, CustomStringConvertible {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() { self = .null; return }
        if let value = try? container.decode(Bool.self) { self = .bool(value); return }
        if let value = try? container.decode(Double.self) { self = .number(value); return }
        if let value = try? container.decode(String.self) { self = .string(value); return }
        if let value = try? container.decode([JSONValue].self) { self = .array(value); return }
        self = .object(try container.decode([String: JSONValue].self))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case let .bool(value): try container.encode(value)
        case let .number(value):
            // Whole numbers print without ".0": ids and sequence numbers are integers.
            if value.rounded() == value, abs(value) < 9.007_199_254_740_992e15 { try container.encode(Int64(value)) } else { try container.encode(value) }
        case let .string(value): try container.encode(value)
        case let .array(value): try container.encode(value)
        case let .object(value): try container.encode(value)
        }
    }

    /// A value JSONSerialization accepts (the CLI's `--json` objects),
    /// through its text, so that booleans stay booleans and numbers numbers.
    public init(jsonObject: Any) throws {
        let data = try JSONSerialization.data(withJSONObject: jsonObject, options: [.fragmentsAllowed])
        self = try JSONDecoder().decode(JSONValue.self, from: data)
    }

    /// Parses JSON text.
    public init(parsing data: Data) throws {
        self = try JSONDecoder().decode(JSONValue.self, from: data)
    }

    /// One line of compact JSON (keys sorted, so output is stable).
    public var description: String { JSONText.line(self) ?? encodedDescription }

    /// `description` by JSONEncoder (what `JSONText` writes by hand, and the numbers it leaves).
    var encodedDescription: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? String(decoding: encoder.encode(self), as: UTF8.self)) ?? "null"
    }

    public subscript(key: String) -> JSONValue? {
        if case let .object(object) = self { return object[key] }
        return nil
    }

    public var stringValue: String? { if case let .string(value) = self { return value }; return nil }
    public var boolValue: Bool? { if case let .bool(value) = self { return value }; return nil }
    /// The value as a whole number, when it is one.
    public var integerValue: Int64? {
        guard case let .number(value) = self, value.rounded() == value, abs(value) < 9.007_199_254_740_992e15 else { return nil }
        return Int64(value)
    }
    public var arrayValue: [JSONValue]? { if case let .array(value) = self { return value }; return nil }
}
