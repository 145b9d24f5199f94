/// Bounds on connections, so that connections which never send a request,
/// send one a byte at a time, or send something that is not HTTP cannot use
/// up the relay's descriptors and memory (settings of `hush relay serve`).
public struct ConnectionLimits: Sendable, Equatable {
    /// Seconds a new connection has to send its first complete request head.
    public var requestHeadTimeoutSeconds: Int64 = 10
    /// Seconds without a byte of a request (between requests, or between two
    /// reads of a body) before a connection is closed. WebSockets are exempt:
    /// they have their own pings.
    public var idleTimeoutSeconds: Int64 = 30
    /// Open connections one client address may hold; more are refused.
    public var maxConnectionsPerAddress = 64
    /// Open connections in all; more are refused (keep it below the process's descriptor limit).
    public var maxConnections = 4_096

    public init() {}
}
