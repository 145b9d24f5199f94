import Glibc
import HushCrypto
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore

/// A relay: the routes over a `RelayCore`, as a Hummingbird application.
///
///     let relay = try RelayServer.embedded(configuration: config, logger: logger)
///     try await relay.makeApplication { port in print(port) }.runService()
///
/// `runService()` handles SIGINT and SIGTERM: the listener closes, requests
/// in flight finish, then the process returns.
public struct RelayServer: Sendable {
    public let core: RelayCore

    /// Open connections, within `RelayConfiguration.connectionLimits`.
    let connections: ConnectionCounter

    /// The embedded relay's hold on its data directory, for as long as this server lives.
    private(set) var directoryLock: RelayDirectoryLock?

    public init(core: RelayCore) {
        self.core = core
        connections = ConnectionCounter(limits: core.configuration.connectionLimits)
    }

    /// How many connections are open now (tests, metrics).
    public var openConnections: Int { connections.open }

    /// The embedded default: the SQLCipher file in the data directory, keyed
    /// by the key file created there on first start.
    public static func embedded(configuration: RelayConfiguration, logger: Logger,
                                clock: any TimeSource = SystemClock(), metrics: RelayMetrics = RelayMetrics()) throws -> RelayServer {
        let directory = RelayDataDirectory(path: configuration.dataDirectory, keyFile: configuration.keyFile)
        try directory.prepare()
        let lock = try directory.lockExclusively()
        try directory.requireMatchingDatabaseAndKey(keyInDirectory: configuration.keyFile == nil)
        let key = try directory.loadOrCreateKey()
        let storage = RelayStorage(try SQLCipherRelayStorage(path: directory.databaseFile, key: key))
        try directory.commitKey()
        let core = RelayCore(configuration: configuration, storage: storage, blobs: BlobStore(directory: directory.blobDirectory),
                             clock: clock, logger: logger, metrics: metrics)
        var server = RelayServer(core: core)
        server.directoryLock = lock
        return server
    }

    /// The HTTP routes (also what router tests drive without a socket).
    public func makeRouter() -> Router<RelayRequestContext> {
        let router = Router(context: RelayRequestContext.self)
        router.add(middleware: RequestMetricsMiddleware(metrics: core.metrics))
        router.add(middleware: ErrorMappingMiddleware(logger: core.logger, metrics: core.metrics))
        HealthRoutes.add(to: router, core: core)
        IdentityRoutes.add(to: router, core: core)
        PrekeyRoutes.add(to: router, core: core)
        AuthRoutes.add(to: router, core: core)
        MailboxRoutes.add(to: router, core: core)
        BlobRoutes.add(to: router, core: core)
        BlobUploadRoutes.add(to: router, core: core)
        DirectoryRoutes.add(to: router, core: core)
        SocketRoute.addFallback(to: router, core: core)
        // Last: it wraps only the not-found responder (no route matched).
        router.add(middleware: MethodNotAllowedMiddleware(routes: router.routes))
        return router
    }

    /// The application: HTTP/1 with WebSocket upgrade on `/v1/socket` (see
    /// `RelayHTTPChannel`), the expiry sweeper as a service. `onListening` gets the bound port.
    /// `onMetricsListening` gets the metrics endpoint's port, when there is one.
    public func makeApplication(onListening: @escaping @Sendable (Int) async -> Void = { _ in },
                                onMetricsListening: @escaping @Sendable (Int) async -> Void = { _ in }) -> some ApplicationProtocol {
        let configuration = core.configuration
        // The libraries' own logger stays at notice or above whatever the relay
        // logs: their request logs carry paths with identity keys.
        var libraryLogger = core.logger
        libraryLogger.logLevel = max(core.logger.logLevel, .notice)
        let http1 = HTTP1Channel.Configuration(idleTimeout: .seconds(configuration.connectionLimits.idleTimeoutSeconds))
        let timing = RelaySocketHandler.Timing(pingInterval: .seconds(configuration.pingIntervalSeconds), closeTimeout: .seconds(configuration.socketCloseTimeoutSeconds))
        let counter = connections
        var app = Application(
            router: makeRouter(),
            server: HTTPServerBuilder { [core] responder in
                GuardedHTTPChannel(inner: RelayHTTPChannel(responder: responder, core: core, http1: http1, timing: timing, maxFrameSize: 1 << 17),
                                   counter: counter, tls: configuration.tls?.context)
            },
            configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "hush-relay"),
            onServerRunning: { [core] channel in
                let port = channel.localAddress?.port ?? 0
                core.origins.bound(host: configuration.host, port: port)
                await onListening(port)
            },
            logger: libraryLogger
        )
        app.addServices(ExpirySweeper(core: core))
        if let address = configuration.metricsAddress, let registry = core.metrics.registry {
            app.addServices(MetricsEndpoint.application(registry: registry, host: address.host, port: address.port,
                                                        logger: libraryLogger, onListening: onMetricsListening))
        }
        if let feed = core.storage.deposits { app.addServices(DepositFeedService(core: core, feed: feed)) }
        return app
    }

    /// Serves until SIGINT or SIGTERM (then finishes the requests in flight).
    public func run(onListening: @escaping @Sendable (Int) async -> Void = { _ in },
                    onMetricsListening: @escaping @Sendable (Int) async -> Void = { _ in }) async throws {
        do {
            try await makeApplication(onListening: onListening, onMetricsListening: onMetricsListening).runService()
        } catch let error as IOError where [EADDRINUSE, EADDRNOTAVAIL, EACCES].contains(error.errnoCode) {
            // Said with the address and what to do: it read "bind(descriptor:ptr:bytes:): Address already
            // in use) (errno: 98)" (a walkthrough).
            let address = "\(core.configuration.host):\(core.configuration.port)"
            let reason = switch error.errnoCode {
            case EADDRINUSE: "the address is already in use (another relay or program listens there): stop it, or choose another --port (or metrics.listen)"
            case EADDRNOTAVAIL: "the host is not an address of this machine: give one of its addresses with --host (127.0.0.1 for this machine only)"
            default: "binding a port below 1024 needs privileges: use a port from 1024 up, behind a proxy if clients need 443"
            }
            throw RelayError.internalFailure("cannot listen on \(address) (or the metrics address): \(reason)")
        }
    }

    /// Runs one expiry sweep now (tests; the service does it periodically).
    @discardableResult
    public func sweepNow() async throws -> SweepResult { try await ExpirySweeper.sweep(core) }
}
