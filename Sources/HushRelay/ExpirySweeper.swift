import Logging
import ServiceLifecycle

/// Deletes expired envelopes, idempotency records, challenges, tokens and
/// blobs every `sweepIntervalSeconds`; stops on graceful shutdown.
struct ExpirySweeper: Service {
    let core: RelayCore

    func run() async throws {
        // Measured at start too: the first sweep is an interval away.
        await Self.recordStorageSize(core)
        let interval = Duration.seconds(max(1, core.configuration.sweepIntervalSeconds))
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            do {
                try await cancelWhenGracefulShutdown { try await Task.sleep(for: interval) }
            } catch {
                return
            }
            do {
                _ = try await ExpirySweeper.sweep(core)
            } catch {
                core.logger.error("expiry sweep failed", metadata: ["error": "\(error)"])
            }
        }
    }

    /// The storage-size metric, when metrics are served: the data directory
    /// and a database server's share (PostgreSQL). A failed size query is
    /// left out rather than failing the sweep.
    static func recordStorageSize(_ core: RelayCore) async {
        guard core.metrics.registry != nil else { return }
        let elsewhere = (try? await core.storage.inventory.bytesOutsideDataDirectory()) ?? 0
        core.metrics.recordStorageSize(of: core.configuration.dataDirectory, plus: elsewhere)
    }

    static func sweep(_ core: RelayCore) async throws -> SweepResult {
        let result = try await core.storage.expiry.sweep(now: core.now)
        for id in result.expiredBlobIDs { core.blobs.delete(id: id) }
        // Uploads nobody continued for a day are abandoned.
        let abandoned = core.blobs.sweepResumables(olderThan: 86_400, now: core.now)
        if abandoned > 0 { core.logger.info("abandoned uploads swept", metadata: ["uploads": "\(abandoned)"]) }
        // Blob files the index does not know (a crash between storing and
        // recording one), after an hour's grace.
        var orphans = 0
        for id in core.blobs.unindexedBlobFiles(olderThan: 3_600, now: core.now)
        where try await core.storage.blobs.blob(id: id, now: core.now) == nil {
            core.blobs.delete(id: id)
            orphans += 1
        }
        if orphans > 0 { core.logger.info("unrecorded blob files swept", metadata: ["files": "\(orphans)"]) }
        core.metrics.sweeps.increment()
        core.metrics.sweptEnvelopes.increment(by: Int64(result.envelopes))
        core.metrics.sweptBlobs.increment(by: Int64(result.expiredBlobIDs.count))
        await recordStorageSize(core)
        if result.envelopes + result.expiredBlobIDs.count > 0 {
            core.logger.info("expired items swept", metadata: [
                "envelopes": "\(result.envelopes)", "blobs": "\(result.expiredBlobIDs.count)",
                "tokens": "\(result.tokens)", "challenges": "\(result.challenges)",
            ])
        }
        return result
    }
}
