import Hummingbird
import NIOCore

/// Per-request context: Hummingbird's core storage and the client's IP
/// address (for per-address rate limits; "local" when there is no socket, as
/// in router tests).
public struct RelayRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    public let remoteAddress: String

    public init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
        self.remoteAddress = source.channel.remoteAddress?.ipAddress ?? "local"
    }

    /// Bodies are collected by each route with its own limit; this is the ceiling.
    public var maxUploadSize: Int { 512 * 1024 }
}
