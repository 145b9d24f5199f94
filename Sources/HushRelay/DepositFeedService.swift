import Logging
import ServiceLifecycle

/// Pushes envelopes that other relay instances stored (reported by the
/// storage's `DepositFeed`) to recipients whose sockets are on this one.
/// Runs only on storage shared by several instances.
struct DepositFeedService: Service {
    let core: RelayCore
    let feed: any DepositFeed

    func run() async throws {
        let hub = core.hub
        try await cancelWhenGracefulShutdown {
            try await feed.run(listening: { hub.connectedIdentities }) { mailbox, stored in
                hub.send(to: mailbox) {
                    SocketFrames.message(messageID: stored.messageID, timestamp: stored.timestamp, expiresAt: stored.expiresAt,
                                         envelope: stored.envelope)
                }
            }
        }
    }
}
