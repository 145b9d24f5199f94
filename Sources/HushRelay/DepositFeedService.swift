import Logging
import ServiceLifecycle

/// Pushes envelopes that other relay instances stored (reported by the
/// storage's `DepositFeed`) to recipients whose sockets are on this one.
/// Runs only on storage shared by several instances.
struct DepositFeedService: Service {
    let core: RelayCore
    let feed: any DepositFeed

    func run() async throws {
        try await cancelWhenGracefulShutdown {
            try await feed.run(HubSockets(hub: core.hub, metrics: core.metrics))
        }
    }
}

/// The connection hub, as the deposit feed sees it.
struct HubSockets: DepositFeedSockets {
    let hub: ConnectionHub
    let metrics: RelayMetrics

    var connectedMailboxes: [[UInt8]] { hub.connectedIdentities }

    func isConnected(_ mailbox: [UInt8]) -> Bool { hub.isConnected(mailbox) }

    func deliver(_ stored: StoredEnvelope, previousMessageID: UInt64?, to mailbox: [UInt8]) {
        let pushed = hub.send(to: mailbox) {
            SocketFrames.message(messageID: stored.messageID, timestamp: stored.timestamp, expiresAt: stored.expiresAt,
                                 envelope: stored.envelope, previousMessageID: previousMessageID)
        }
        metrics.pushes.increment(by: Int64(pushed))
    }
}
