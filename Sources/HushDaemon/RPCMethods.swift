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
        /// Starts work that outlives the answer (a subscription's stream):
        /// it is cancelled when the caller's connection closes.
        public let spawn: @Sendable (_ work: @escaping @Sendable () async -> Void) -> Void
    }

    public typealias Handler = @Sendable (_ params: JSONValue, _ call: Call) async throws -> JSONValue

    /// A method and the line that documents it (`rpc.discover` lists them).
    public struct Method: Sendable {
        public let name: String
        public let summary: String
        public let handler: Handler
    }

    public private(set) var methods: [String: Method] = [:]

    public init() {}

    /// Adds (or replaces) `name`.
    public mutating func register(_ name: String, summary: String, _ handler: @escaping Handler) {
        methods[name] = Method(name: name, summary: summary, handler: handler)
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
