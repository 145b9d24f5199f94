import HushRelay
import Logging

extension RelayServer {
    /// A relay instance on PostgreSQL: shared stores, pushes from the other
    /// instances through the deposit feed, blob bytes in the data directory
    /// (which all instances must share). `hush relay serve --database` and
    /// the relay benchmark both start instances this way.
    public static func onPostgres(_ url: PostgresURL, configuration: RelayConfiguration, logger: Logger,
                                  metrics: RelayMetrics = RelayMetrics()) async throws -> RelayServer {
        let directory = RelayDataDirectory(path: configuration.dataDirectory, keyFile: configuration.keyFile)
        try directory.prepare(checkingOwner: false)
        let instance = PostgresRelayStorage.newInstanceID()
        let storage = try await PostgresRelayStorage(url: url, instance: instance, logger: logger)
        logger.info("relay storage on PostgreSQL", metadata: ["database": "\(url)", "instance": "\(instance)"])
        let core = RelayCore(configuration: configuration, storage: RelayStorage(storage, deposits: PostgresDepositFeed(storage: storage)),
                             blobs: BlobStore(directory: directory.blobDirectory), logger: logger, metrics: metrics)
        return RelayServer(core: core)
    }
}
