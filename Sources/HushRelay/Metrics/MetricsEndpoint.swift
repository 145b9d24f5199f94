import Hummingbird
import Logging
import NIOCore
import Prometheus

/// `GET /metrics` in the Prometheus text format, on its own address (keep it
/// off the public one: the counts tell an outsider how busy the relay is).
enum MetricsEndpoint {
    static func application(registry: PrometheusCollectorRegistry, host: String, port: Int, logger: Logger,
                            onListening: @escaping @Sendable (Int) async -> Void) -> some ApplicationProtocol {
        let router = Router()
        router.get("/metrics") { _, _ -> Response in
            Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                     body: .init(byteBuffer: ByteBuffer(bytes: registry.emitToBuffer())))
        }
        return Application(router: router, configuration: .init(address: .hostname(host, port: port), serverName: "hush-relay-metrics"),
                           onServerRunning: { channel in await onListening(channel.localAddress?.port ?? 0) }, logger: logger)
    }
}
