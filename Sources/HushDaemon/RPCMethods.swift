/// The local API's methods by name: what the daemon answers on its socket.
public struct RPCMethods: Sendable {
    /// What a method receives besides its parameters.
    public struct Call: Sendable {
        /// The process that called (checked to be the daemon's own user).
        public let peer: PeerCredentials
        /// Sends a notification (a message without an id) to the caller, for
        /// methods that stream (subscriptions, a command's output). Throws
        /// when the caller is gone.
        public let notify: @Sendable (_ method: String, _ params: JSONValue) async throws -> Void
        /// Starts work that outlives the answer (a subscription's stream),
        /// once the answer is written, so that its notifications follow it:
        /// it is cancelled when the caller's connection closes.
        public let spawn: @Sendable (_ work: @escaping @Sendable () async -> Void) -> Void
    }

    public typealias Handler = @Sendable (_ params: JSONValue, _ call: Call) async throws -> JSONValue

    /// A named parameter, as OpenRPC describes one (`schema` is JSON Schema).
    public struct Parameter: Sendable {
        public let name: String
        public let required: Bool
        public let description: String
        public let schema: JSONValue

        public init(_ name: String, required: Bool = false, _ description: String, schema: JSONValue) {
            self.name = name
            self.required = required
            self.description = description
            self.schema = schema
        }
    }

    /// A method and what documents it (`rpc.discover` returns them as an OpenRPC document).
    public struct Method: Sendable {
        public let name: String
        public let summary: String
        public let params: [Parameter]
        /// JSON Schema of the result.
        public let result: JSONValue
        public let handler: Handler
    }

    public private(set) var methods: [String: Method] = [:]

    public init() {}

    /// Adds (or replaces) `name`.
    public mutating func register(_ name: String, summary: String, params: [Parameter] = [], result: JSONValue,
                                  _ handler: @escaping Handler) {
        methods[name] = Method(name: name, summary: summary, params: params, result: result, handler: handler)
    }

    /// The methods as an OpenRPC 1.2 document (https://spec.open-rpc.org), sorted by name.
    public func openRPCDocument(title: String, version: String, description: String) -> JSONValue {
        .object([
            "openrpc": .string("1.2.6"),
            "info": .object(["title": .string(title), "version": .string(version), "description": .string(description)]),
            "methods": .array(methods.values.sorted { $0.name < $1.name }.map { method in
                .object([
                    "name": .string(method.name),
                    "summary": .string(method.summary),
                    "paramStructure": .string("by-name"),
                    "params": .array(method.params.map { parameter in
                        .object(["name": .string(parameter.name), "required": .bool(parameter.required),
                                 "description": .string(parameter.description), "schema": parameter.schema])
                    }),
                    "result": .object(["name": .string("result"), "schema": method.result]),
                ])
            }),
        ])
    }

    /// Adds every method of `other`.
    public mutating func merge(_ other: RPCMethods) {
        methods.merge(other.methods) { _, new in new }
    }
}

/// A method's failure as JSON-RPC reports it: a code, a message for people,
/// and data for programs.
public struct RPCError: Error, Sendable, Equatable {
    public let code: Int
    public let message: String
    public let data: JSONValue?

    public init(code: Int, message: String, data: JSONValue? = nil) {
        self.code = code
        self.message = message
        self.data = data
    }

    // JSON-RPC 2.0's own codes.
    public static func parseError(_ detail: String) -> RPCError { RPCError(code: -32700, message: "parse error: \(detail)") }
    public static func invalidRequest(_ detail: String) -> RPCError { RPCError(code: -32600, message: "invalid request: \(detail)") }
    public static func methodNotFound(_ name: String) -> RPCError {
        RPCError(code: -32601, message: "no method '\(name)': `rpc.discover` lists them")
    }
    public static func invalidParams(_ detail: String) -> RPCError { RPCError(code: -32602, message: "invalid params: \(detail)") }
    public static func internalError(_ detail: String) -> RPCError { RPCError(code: -32603, message: "internal error: \(detail)") }
}

/// Who is on the other end of a connection, as the kernel tells it (SO_PEERCRED).
public struct PeerCredentials: Sendable, Equatable {
    public let pid: Int32
    public let uid: UInt32
    public let gid: UInt32

    public init(pid: Int32, uid: UInt32, gid: UInt32) {
        self.pid = pid
        self.uid = uid
        self.gid = gid
    }
}

extension JSONValue {
    /// JSON Schema shorthands for method descriptions.
    public static let stringSchema: JSONValue = .object(["type": .string("string")])
    public static let booleanSchema: JSONValue = .object(["type": .string("boolean")])
    public static let integerSchema: JSONValue = .object(["type": .string("integer")])
    public static let anyObjectSchema: JSONValue = .object(["type": .string("object")])

    /// An object schema with these properties (all others allowed).
    public static func objectSchema(_ properties: [String: JSONValue], required: [String] = []) -> JSONValue {
        .object(["type": .string("object"), "properties": .object(properties), "required": .array(required.map(JSONValue.string))])
    }

    /// A required string parameter, or an invalid-params error that names it.
    public func requiredString(_ key: String) throws -> String {
        guard let value = self[key]?.stringValue else { throw RPCError.invalidParams("'\(key)' must be a string") }
        return value
    }

    /// An optional string parameter (absent or null is nil; another type is an error).
    public func optionalString(_ key: String) throws -> String? {
        switch self[key] {
        case nil, .null?: return nil
        case let .string(value)?: return value
        default: throw RPCError.invalidParams("'\(key)' must be a string")
        }
    }

    /// An optional whole-number parameter within `range`.
    public func optionalInteger(_ key: String, in range: ClosedRange<Int64>) throws -> Int64? {
        switch self[key] {
        case nil, .null?: return nil
        case let value?:
            guard let number = value.integerValue, range.contains(number) else {
                throw RPCError.invalidParams("'\(key)' must be a whole number from \(range.lowerBound) to \(range.upperBound)")
            }
            return number
        }
    }

    /// An optional boolean parameter.
    public func optionalBool(_ key: String) throws -> Bool? {
        switch self[key] {
        case nil, .null?: return nil
        case let .bool(value)?: return value
        default: throw RPCError.invalidParams("'\(key)' must be true or false")
        }
    }
}
