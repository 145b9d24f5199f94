import HushCrypto
import HushProtocol
import HushStore

/// What waits to leave this device: each flush first lets the work that
/// queues more run (group deliveries, uploads), then has `Dispatcher` post
/// what is due; `hush retry` makes waiting requests due now, and `hush
/// outbox` lists them. Everything in it was sealed by `Sealer`.
final class Outbox {
    private let dependencies: MessengerDependencies
    private let sealer: Sealer
    private let dispatcher: Dispatcher
    private let groupDeliveries: GroupDeliveries
    private let uploads: AttachmentUploads
    private let registration: HomeRegistration
    private var store: MessageStore { dependencies.store }

    init(_ dependencies: MessengerDependencies, sealer: Sealer, dispatcher: Dispatcher, groupDeliveries: GroupDeliveries,
         uploads: AttachmentUploads, registration: HomeRegistration) {
        self.dependencies = dependencies
        self.registration = registration
        self.sealer = sealer
        self.dispatcher = dispatcher
        self.groupDeliveries = groupDeliveries
        self.uploads = uploads
    }

    /// Posts every due outbox request once (`Dispatcher`), with the work that
    /// queues more first: group deliveries waiting for a member's session,
    /// and uploads whose pointer message is queued once the relay holds the file.
    @discardableResult
    func flush(isolation: isolated (any Actor)? = #isolation) async -> OutboxReport {
        var report = OutboxReport()
        // A home another one replaced posts nothing: its sessions are not its contacts' any more.
        guard await registration.allowsRelayUse() else { return report }
        await groupDeliveries.sealPending()
        // What is queued goes first, so that a text never waits behind a
        // file's upload (which may be long, or failing); then the uploads that
        // are due, each of which queues its pointer message; then those.
        await dispatcher.dispatchDue(into: &report)
        // A device the account revoked uploads nothing either (its pointers would be given up); a
        // list that cannot be read says nothing about that (nil too), and the uploads go on.
        if (try? dependencies.thisDeviceRevokedAt()) == nil { await uploads.uploadPending() }
        await dispatcher.dispatchDue(into: &report)
        let pendingAt = (try? store.outbox.items(status: .pending).map(\.nextAttemptAt).min()) ?? nil
        let uploadAt = (try? store.attachments.nextUploadAttempt()) ?? nil
        report.nextAttemptAt = [pendingAt, uploadAt].compactMap { $0 }.min()
        return report
    }

    /// Makes failed and pending requests (those whose id starts with
    /// `requestID`, or all) due now, for the user's `hush retry`: failed ones
    /// become pending again, and pending ones waiting out their backoff are
    /// due at once; after an outage the user should not have to wait for the
    /// jittered schedule, which grows to minutes. A text message is sealed
    /// again on the current session first: the conversation may have moved on
    /// while it waited. Joins the caller's transaction.
    func makeDueNow(requestID: String?) throws {
        let now = dependencies.clock.now()
        let waiting = try store.outbox.items(status: .failed) + store.outbox.items(status: .pending)
        let chosen = requestID.map { id in waiting.filter { $0.requestId.hasPrefix(id) } } ?? waiting
        if let requestID, chosen.isEmpty { throw MessengerError.unknownMessage(requestID) }
        try store.withinWrite { store in
            for item in chosen {
                do {
                    if try sealer.resealForRetry(item) { continue }
                } catch is MessengerError {
                    // Nothing to seal it on now (a contact whose account key was retired, with no session
                    // with its other devices yet): it stays as it is, and the others are retried.
                    continue
                }
                try store.sendQueue.retry(requestId: item.requestId, at: now)
            }
        }
    }

    /// Pending and failed requests, for `hush outbox`.
    func waiting() throws -> [OutboxItem] {
        try store.outbox.items(status: .pending) + store.outbox.items(status: .failed)
    }
}
