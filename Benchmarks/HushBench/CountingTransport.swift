import HushMessenger
import HushProtocol
import Synchronization

/// A transport that forwards to another and counts what the deposits
/// upload: request bodies as the relay client sends them (a direct deposit's
/// body is the envelope; a fan-out's is JSON with the envelope in base64 and
/// one entry per recipient), and how many requests.
final class CountingTransport: ForwardingTransport {
    let inner: any RelayTransport
    private let counts = Mutex((requests: 0, bytes: 0))

    init(_ inner: any RelayTransport) { self.inner = inner }

    var uploaded: (requests: Int, bytes: Int) { counts.withLock { $0 } }
    func reset() { counts.withLock { $0 = (0, 0) } }

    func deposit(_ envelope: [UInt8], to recipient: IdentityKey, requestID: String,
                 credential: [UInt8]?) async throws(DeliveryFailure) -> DepositReceipt {
        counts.withLock { $0.requests += 1; $0.bytes += envelope.count }
        return try await inner.deposit(envelope, to: recipient, requestID: requestID, credential: credential)
    }

    func depositFanOut(_ envelope: [UInt8], requestID: String,
                       to recipients: [FanOutRecipient]) async throws(DeliveryFailure) -> [Result<DepositReceipt, DeliveryFailure>] {
        // {"requestID":"…","envelope":"<base64>","recipients":[{"mailbox":"<44>","credential":"<44>"},…]}
        let body = 40 + requestID.utf8.count + (envelope.count + 2) / 3 * 4
            + recipients.map { 16 + 44 + ($0.credential == nil ? 0 : 18 + 44) }.reduce(0, +)
        counts.withLock { $0.requests += 1; $0.bytes += body }
        return try await inner.depositFanOut(envelope, requestID: requestID, to: recipients)
    }
}
