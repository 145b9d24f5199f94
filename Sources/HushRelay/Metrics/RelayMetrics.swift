import CoreMetrics
import Foundation
import Prometheus

/// What the relay counts, through swift-metrics with an explicit factory (no
/// process-wide bootstrap, so tests and several relays in one process keep
/// their own). Labels are route templates (`/v1/mailboxes/{identity}/ack`),
/// methods, HTTP statuses and error codes only: never an identity, a
/// mailbox, an address or an IP.
public struct RelayMetrics: Sendable {
    let deposits: CoreMetrics.Counter
    let depositBytes: CoreMetrics.Counter
    let fanOuts: CoreMetrics.Counter
    let fanOutRecipients: CoreMetrics.Counter
    let syncs: CoreMetrics.Counter
    let acks: CoreMetrics.Counter
    let acknowledgedEnvelopes: CoreMetrics.Counter
    let pushes: CoreMetrics.Counter
    let socketsOpen: CoreMetrics.Gauge
    let sweeps: CoreMetrics.Counter
    let sweptEnvelopes: CoreMetrics.Counter
    let sweptBlobs: CoreMetrics.Counter
    let storageBytes: CoreMetrics.Gauge
    private let factory: any MetricsFactory
    /// Set when the metrics are Prometheus's: what the endpoint serves.
    public let registry: PrometheusCollectorRegistry?

    /// Counts nothing (the default: metrics are opt-in).
    public init() { self.init(factory: NOOPMetricsHandler.instance, registry: nil) }

    /// Metrics in a fresh Prometheus registry.
    public static func prometheus() -> RelayMetrics {
        let registry = PrometheusCollectorRegistry()
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.defaultDurationHistogramBuckets = [.milliseconds(1), .milliseconds(5), .milliseconds(25), .milliseconds(100),
                                                   .milliseconds(250), .seconds(1), .seconds(5)]
        return RelayMetrics(factory: factory, registry: registry)
    }

    init(factory: any MetricsFactory, registry: PrometheusCollectorRegistry?) {
        self.factory = factory
        self.registry = registry
        deposits = CoreMetrics.Counter(label: "hush_relay_deposits_total", factory: factory)
        depositBytes = CoreMetrics.Counter(label: "hush_relay_deposit_bytes_total", factory: factory)
        fanOuts = CoreMetrics.Counter(label: "hush_relay_fanouts_total", factory: factory)
        fanOutRecipients = CoreMetrics.Counter(label: "hush_relay_fanout_recipients_total", factory: factory)
        syncs = CoreMetrics.Counter(label: "hush_relay_syncs_total", factory: factory)
        acks = CoreMetrics.Counter(label: "hush_relay_acks_total", factory: factory)
        acknowledgedEnvelopes = CoreMetrics.Counter(label: "hush_relay_acknowledged_envelopes_total", factory: factory)
        pushes = CoreMetrics.Counter(label: "hush_relay_pushes_total", factory: factory)
        socketsOpen = CoreMetrics.Gauge(label: "hush_relay_sockets_open", factory: factory)
        sweeps = CoreMetrics.Counter(label: "hush_relay_expiry_sweeps_total", factory: factory)
        sweptEnvelopes = CoreMetrics.Counter(label: "hush_relay_expired_envelopes_total", factory: factory)
        sweptBlobs = CoreMetrics.Counter(label: "hush_relay_expired_blobs_total", factory: factory)
        storageBytes = CoreMetrics.Gauge(label: "hush_relay_storage_bytes", factory: factory)
    }

    /// A refused request: its status and stable error code (`RelayErrorCode`).
    func refused(status: Int, reason: String) {
        CoreMetrics.Counter(label: "hush_relay_refusals_total", dimensions: [("status", String(status)), ("reason", reason)], factory: factory).increment()
    }

    /// How long a request took, by route template (`unmatched` for none).
    func requestDuration(route: String, method: String, _ duration: Duration) {
        CoreMetrics.Timer(label: "hush_relay_request_duration_seconds", dimensions: [("route", route), ("method", method)], factory: factory)
            .recordNanoseconds(duration.nanoseconds)
    }

    /// The bytes under `directory` (database file, its journal, blobs), plus
    /// `elsewhere` (a database server's).
    func recordStorageSize(of directory: String, plus elsewhere: Int64) {
        let files = FileManager.default.enumerator(atPath: directory)
        var total = elsewhere
        while let file = files?.nextObject() as? String {
            let attributes = try? FileManager.default.attributesOfItem(atPath: directory + "/" + file)
            if attributes?[.type] as? FileAttributeType == .typeRegular { total += (attributes?[.size] as? NSNumber)?.int64Value ?? 0 }
        }
        storageBytes.record(total)
    }
}

extension Duration {
    var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}
