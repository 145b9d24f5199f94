import HushMessenger
import HushProtocol
import Synchronization

/// A transport that forwards to another and notes when things happen on it,
/// for the e2e suite's breakdown: when each deposit started and when the
/// relay answered it, and when the live loop took each pushed envelope off
/// the socket (which includes any time the loop was busy with other work).
/// It notes instants only, never what was sent.
final class TimedTransport: ForwardingTransport {
    struct Log: Sendable {
        var depositStarts: [ContinuousClock.Instant] = []
        var depositEnds: [ContinuousClock.Instant] = []
        var pushesTaken: [ContinuousClock.Instant] = []
    }

    let inner: any RelayTransport
    /// Shared with the streams `connect` returns.
    private final class Notes: Sendable { let log = Mutex(Log()) }
    private let notes = Notes()

    init(_ inner: any RelayTransport) { self.inner = inner }

    /// What was noted since the last call, and a fresh log.
    func take() -> Log { notes.log.withLock { log in defer { log = Log() }; return log } }

    func deposit(_ envelope: [UInt8], to recipient: IdentityKey, requestID: String,
                 credential: [UInt8]?) async throws(DeliveryFailure) -> DepositReceipt {
        notes.log.withLock { $0.depositStarts.append(.now) }
        defer { notes.log.withLock { $0.depositEnds.append(.now) } }
        return try await inner.deposit(envelope, to: recipient, requestID: requestID, credential: credential)
    }

    func depositFanOut(_ envelope: [UInt8], requestID: String,
                       to recipients: [FanOutRecipient]) async throws(DeliveryFailure) -> [Result<DepositReceipt, DeliveryFailure>] {
        notes.log.withLock { $0.depositStarts.append(.now) }
        defer { notes.log.withLock { $0.depositEnds.append(.now) } }
        return try await inner.depositFanOut(envelope, requestID: requestID, to: recipients)
    }

    /// The inner stream, pulled by the caller itself (no task in between, so
    /// no hop is added): an envelope is noted when the live loop asks for it.
    func connect() async throws(DeliveryFailure) -> AsyncStream<TransportEvent> {
        let events = EventPuller(try await inner.connect())
        let notes = self.notes
        return AsyncStream {
            let event = await events.next()
            if case .envelope = event { notes.log.withLock { $0.pushesTaken.append(.now) } }
            return event
        }
    }

    /// The inner stream's iterator, pulled only by the one live loop that
    /// iterates the stream `connect` returned.
    private final class EventPuller: @unchecked Sendable {
        private var iterator: AsyncStream<TransportEvent>.AsyncIterator
        init(_ stream: AsyncStream<TransportEvent>) { iterator = stream.makeAsyncIterator() }
        func next() async -> TransportEvent? { await iterator.next() }
    }
}
