import HushProtocol

/// The live connection: pushed envelopes in, ephemeral ones (typing) out.
public protocol LiveChannel: Sendable {
    /// Opens the live connection; events arrive until `.disconnected`.
    func connect() async throws(DeliveryFailure) -> AsyncStream<TransportEvent>
    /// Sends an ephemeral envelope over the live connection (dropped when the recipient is offline).
    func sendEphemeral(_ envelope: [UInt8], to recipient: IdentityKey, credential: [UInt8]) async throws(DeliveryFailure)
}
