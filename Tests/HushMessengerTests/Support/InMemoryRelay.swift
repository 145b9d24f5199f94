import Foundation
import HushCrypto
import HushMessenger
import HushProtocol
import HushRelayAPI
import Synchronization

/// A relay in memory for pipeline unit tests: mailboxes, bundles,
/// idempotent deposits, and injectable failures. The process-level tests in
/// HushEndToEndTests use the real relay.
final class InMemoryRelay: Sendable {
    struct Bundle {
        var signed: SignedPrekey
        var lastResort: SignedPrekey
        var oneTime: [SignedPrekey]
        /// The registration's timestamp: each registration's is later than the last.
        var registeredAt: Int64 = 0
    }

    struct State {
        var mailboxes: [[UInt8]: [MailboxEnvelope]] = [:]
        /// Accounts' device directories (§20.9), by account key: the list as written.
        var directories: [[UInt8]: DeviceList] = [:]
        var bundles: [[UInt8]: Bundle] = [:]
        var depositsByRequest: [String: DepositReceipt] = [:]
        var nextID: Int64 = 1
        /// Failures the next deposits answer with, in order.
        var depositFailures: [DeliveryFailure] = []
        /// Mailboxes that refuse every delivery credential (403), as one
        /// whose identity registered another would.
        var refusingCredentials: Set<[UInt8]> = []
        var depositCalls = 0
        /// How long each deposit waits before it is handled, and the most
        /// deposits seen waiting at once, in all and to one mailbox.
        var depositPause: Duration?
        var depositsInFlight: [[UInt8]: Int] = [:]
        var mostDepositsInFlight = 0
        var mostDepositsInFlightToOneMailbox = 0
        /// The recipients of each fan-out request, in order.
        var fanOutSizes: [Int] = []
        var authentications = 0
        var tokenValid: [[UInt8]: Bool] = [:]
        /// Blobs by id, and uploads in progress (declared length, bytes so far).
        var blobs: [String: [UInt8]] = [:]
        var uploads: [String: (length: Int, bytes: [UInt8])] = [:]
        /// Failures the next upload attempts answer with, in order.
        var uploadFailures: [DeliveryFailure] = []
        var uploadCalls = 0
        /// Upload requests that followed a file still being sealed.
        var followedUploads = 0
        /// Where each download started (its `from` offset).
        var downloadOffsets: [Int64] = []
        /// Cuts the next download off (`unavailable`) once it has handed on this many bytes of the blob.
        var downloadCutAt: Int?
        /// How long each upload request waits before it is handled (lets
        /// other work interleave at the await, as a real upload would).
        var uploadPause: Duration?
        /// How long each download waits after it started (recorded in
        /// `downloadOffsets`) before its first byte: other work interleaves.
        var downloadPause: Duration?
        /// Live connections by identity (the latest connect of each).
        var sockets: [[UInt8]: AsyncStream<TransportEvent>.Continuation] = [:]
        /// When set, deposits do not push at once: their pushes wait in
        /// `heldPushes` until a test releases them, in the order it chooses.
        var holdPushes = false
        var heldPushes: [(mailbox: [UInt8], envelope: MailboxEnvelope)] = []
        var fetchCalls = 0
        /// The mailbox of each ephemeral envelope (typing), in order.
        var ephemeralRecipients: [[UInt8]] = []
        /// Runs before each acknowledgement is applied, with its ids.
        var beforeAcknowledge: (@Sendable ([Int64]) async -> Void)?
    }

    let state = Mutex(State())
    /// Runs after the relay took a registration and before the registering
    /// client hears back: what another process of the same home sees then.
    let afterRegistration = Mutex<(@Sendable () async -> Void)?>(nil)

    func transport(for identity: IdentityKeyPair) -> Transport {
        Transport(relay: self, me: identity.publicKey.rawRepresentation)
    }

    /// Puts raw bytes into a mailbox, as a hostile party could.
    func inject(_ bytes: [UInt8], into mailbox: IdentityKey) {
        state.withLock { state in
            state.mailboxes[mailbox.rawRepresentation, default: []].append(
                MailboxEnvelope(serverID: state.nextID, relayTimestamp: 1_000 + state.nextID, bytes: bytes))
            state.nextID += 1
        }
    }

    func stored(for mailbox: IdentityKey) -> [MailboxEnvelope] {
        state.withLock { $0.mailboxes[mailbox.rawRepresentation] ?? [] }
    }

    /// Pushes a held deposit (`holdPushes`) to its recipient's live connection.
    func releasePush(at index: Int) {
        let (push, socket) = state.withLock { state in
            let push = state.heldPushes.remove(at: index)
            return (push, state.sockets[push.mailbox])
        }
        socket?.yield(.envelope(push.envelope))
    }

    func isConnected(_ identity: IdentityKey) -> Bool {
        state.withLock { $0.sockets[identity.rawRepresentation] != nil }
    }

    /// Makes every token invalid, as when tokens expire.
    func expireTokens() {
        state.withLock { $0.tokenValid.removeAll() }
    }

    struct Transport: RelayTransport, BlobTransfer {
        let relay: InMemoryRelay
        let me: [UInt8]

        func authenticate(identity: IdentityKeyPair) async throws(DeliveryFailure) {
            relay.state.withLock { state in
                state.authentications += 1
                state.tokenValid[me] = true
            }
        }

        func register(identity: IdentityKeyPair, signedPrekey: SignedPrekey, lastResortKEMPrekey: SignedPrekey,
                      oneTimePrekeys: [SignedPrekey]) async throws(DeliveryFailure) -> Int64 {
            let at = relay.state.withLock { state in
                let at = (state.bundles[me]?.registeredAt ?? 1_700_000_000_000) + 1
                state.bundles[me] = Bundle(signed: signedPrekey, lastResort: lastResortKEMPrekey, oneTime: oneTimePrekeys, registeredAt: at)
                return at
            }
            if let hook = relay.afterRegistration.withLock({ $0 }) { await hook() }
            return at
        }

        func uploadPrekeys(_ prekeys: [SignedPrekey]) async throws(DeliveryFailure) -> (x25519: Int, kem: Int) {
            let counts = try counts { $0.oneTime += prekeys }
            return (counts.x25519, counts.kem)
        }

        func prekeyCounts() async throws(DeliveryFailure) -> (x25519: Int, kem: Int, registration: HeldRegistration?) {
            try counts { _ in }
        }

        private func counts(_ change: (inout Bundle) -> Void) throws(DeliveryFailure) -> (x25519: Int, kem: Int, registration: HeldRegistration?) {
            let result: (Int, Int, HeldRegistration?)? = relay.state.withLock { state in
                guard var bundle = state.bundles[me] else { return nil }
                change(&bundle)
                state.bundles[me] = bundle
                return (bundle.oneTime.filter { $0.kind == .oneTimeX25519 }.count, bundle.oneTime.filter { $0.kind == .oneTimeKEM }.count,
                        HeldRegistration(registeredAt: bundle.registeredAt, signedPrekey: bundle.signed))
            }
            guard let result else { throw .rejected(status: 404, code: "not_found") }
            return result
        }

        func fetchBundle(for identity: IdentityKey) async throws(DeliveryFailure) -> PrekeyBundle {
            let parts: (SignedPrekey, SignedPrekey, SignedPrekey?)? = relay.state.withLock { state in
                guard var bundle = state.bundles[identity.rawRepresentation] else { return nil }
                let x = bundle.oneTime.firstIndex { $0.kind == .oneTimeX25519 }.map { bundle.oneTime.remove(at: $0) }
                let kem = bundle.oneTime.firstIndex { $0.kind == .oneTimeKEM }.map { bundle.oneTime.remove(at: $0) }
                state.bundles[identity.rawRepresentation] = bundle
                return (bundle.signed, kem ?? bundle.lastResort, x)
            }
            guard let parts else { throw .rejected(status: 404, code: "not_found") }
            do {
                return try PrekeyBundle(identityKey: identity, signedPrekey: parts.0, kemPrekey: parts.1, oneTimePrekey: parts.2)
            } catch {
                throw .rejected(status: 500, code: "bad bundle")
            }
        }

        func updateDeliveryCredentials(add tokens: [[UInt8]], remove revoked: [[UInt8]]) async throws(DeliveryFailure) {}

        func deposit(_ envelope: [UInt8], to recipient: IdentityKey, requestID: String,
                     credential: [UInt8]?) async throws(DeliveryFailure) -> DepositReceipt {
            let mailbox = recipient.rawRepresentation
            let pause = relay.state.withLock { state -> Duration? in
                guard let pause = state.depositPause else { return nil }
                state.depositsInFlight[mailbox, default: 0] += 1
                state.mostDepositsInFlight = max(state.mostDepositsInFlight, state.depositsInFlight.values.reduce(0, +))
                state.mostDepositsInFlightToOneMailbox = max(state.mostDepositsInFlightToOneMailbox, state.depositsInFlight[mailbox] ?? 0)
                return pause
            }
            if let pause {
                try? await Task.sleep(for: pause)
                relay.state.withLock { $0.depositsInFlight[mailbox, default: 1] -= 1 }
            }
            let (outcome, push): (Result<DepositReceipt, DeliveryFailure>, (AsyncStream<TransportEvent>.Continuation, MailboxEnvelope)?) =
                relay.state.withLock { state in
                    state.depositCalls += 1
                    if !state.depositFailures.isEmpty { return (.failure(state.depositFailures.removeFirst()), nil) }
                    if credential != nil, state.refusingCredentials.contains(mailbox) {
                        return (.failure(.rejected(status: 403, code: "invalid_credential")), nil)
                    }
                    // Idempotent per mailbox, as the relay is: a group message's fan-out uses one request id for every member.
                    let requestKey = Hex.encode(mailbox) + "/" + requestID
                    if let earlier = state.depositsByRequest[requestKey] { return (.success(earlier), nil) }
                    let receipt = DepositReceipt(serverID: state.nextID, relayTimestamp: 1_000 + state.nextID)
                    state.nextID += 1
                    // As the embedded relay does: the highest id the mailbox holds.
                    let previous = state.mailboxes[mailbox]?.map(\.serverID).max() ?? 0
                    state.mailboxes[mailbox, default: []].append(
                        MailboxEnvelope(serverID: receipt.serverID, relayTimestamp: receipt.relayTimestamp, bytes: envelope))
                    state.depositsByRequest[requestKey] = receipt
                    let pushed = MailboxEnvelope(serverID: receipt.serverID, relayTimestamp: receipt.relayTimestamp, bytes: envelope,
                                                 previousServerID: previous)
                    if state.holdPushes {
                        state.heldPushes.append((mailbox, pushed))
                        return (.success(receipt), nil)
                    }
                    return (.success(receipt), state.sockets[mailbox].map { ($0, pushed) })
                }
            if let (socket, envelope) = push { socket.yield(.envelope(envelope)) }
            return try outcome.get()
        }

        /// As the relay's `POST /v1/fanout`: refused as a whole beyond 255
        /// recipients (422), otherwise one deposit per recipient.
        func depositFanOut(_ envelope: [UInt8], requestID: String,
                           to recipients: [FanOutRecipient]) async throws(DeliveryFailure) -> [Result<DepositReceipt, DeliveryFailure>] {
            relay.state.withLock { $0.fanOutSizes.append(recipients.count) }
            guard recipients.count <= 255 else { throw .rejected(status: 422, code: "malformed") }
            return try await depositEach(envelope, requestID: requestID, to: recipients)
        }

        func fetch(after serverID: Int64, limit: Int) async throws(DeliveryFailure) -> MailboxPage {
            try requireToken()
            let all = relay.state.withLock { state in
                state.fetchCalls += 1
                return state.mailboxes[me] ?? []
            }.filter { $0.serverID > serverID }
            return MailboxPage(envelopes: Array(all.prefix(limit)), hasMore: all.count > limit)
        }

        func acknowledge(_ serverIDs: [Int64]) async throws(DeliveryFailure) {
            try requireToken()
            if let hook = relay.state.withLock({ $0.beforeAcknowledge }) { await hook(serverIDs) }
            relay.state.withLock { state in
                state.mailboxes[me]?.removeAll { serverIDs.contains($0.serverID) }
            }
        }

        /// Stays open until the test ends; deposits to `me` are pushed here.
        func connect() async throws(DeliveryFailure) -> AsyncStream<TransportEvent> {
            let (stream, continuation) = AsyncStream.makeStream(of: TransportEvent.self)
            relay.state.withLock { $0.sockets[me] = continuation }
            return stream
        }

        /// Recorded, not delivered: the mailbox each ephemeral envelope was sent to.
        func sendEphemeral(_ envelope: [UInt8], to recipient: IdentityKey, credential: [UInt8]) async throws(DeliveryFailure) {
            relay.state.withLock { $0.ephemeralRecipients.append(recipient.rawRepresentation) }
        }

        func startBlobUpload(length: Int64) async throws(DeliveryFailure) -> String {
            try requireToken()
            return relay.state.withLock { state in
                let id = String(format: "%064x", state.nextID)
                state.nextID += 1
                state.uploads[id] = (Int(length), [])
                return id
            }
        }

        /// Takes the file from where the upload stands; a failure queued in
        /// `uploadFailures` keeps half of what was sent, as a cut connection would.
        func continueBlobUpload(id: String, file path: String, length: Int64, segmentBytes: Int64,
                                growing: GrowingUploadFile?,
                                progress: @escaping @Sendable (Int64) -> Void) async throws(DeliveryFailure) -> BlobUploadStep {
            try requireToken()
            if let pause = relay.state.withLock({ $0.uploadPause }) { try? await Task.sleep(for: pause) }
            // A file still being sealed: this relay takes its bytes once they are all written,
            // from the writer's memory where it holds them, as the real client does.
            let data: Data
            if let growing {
                var bytes = Data(), written: Int64 = 0
                while Int64(bytes.count) < length {
                    do { written = try await growing.available(Int64(bytes.count)) } catch {
                        throw .unavailable(reason: "the file stopped growing: \(error)")
                    }
                    var piece = [UInt8](repeating: 0, count: Int(written) - bytes.count)
                    let held = piece.withUnsafeMutableBytes { growing.copyHeld(Int64(bytes.count), $0) }
                    if held > 0 {
                        bytes += piece[..<held]
                    } else {
                        let file = FileHandle(forReadingAtPath: path)
                        try? file?.seek(toOffset: UInt64(bytes.count))
                        guard let read = try? file?.read(upToCount: piece.count), !read.isEmpty else { throw .unavailable(reason: "no file") }
                        bytes += read
                    }
                }
                relay.state.withLock { $0.followedUploads += 1 }
                data = bytes
            } else {
                guard let contents = FileManager.default.contents(atPath: path) else { throw .unavailable(reason: "no file") }
                data = contents
            }
            let outcome: Result<BlobUploadStep, DeliveryFailure> = relay.state.withLock { state in
                state.uploadCalls += 1
                guard var upload = state.uploads[id] else { return .failure(.rejected(status: 404, code: "not_found")) }
                let rest = Array(data[upload.bytes.count...].prefix(Int(segmentBytes)))
                if !state.uploadFailures.isEmpty {
                    upload.bytes += rest.prefix(rest.count / 2)
                    state.uploads[id] = upload
                    return .failure(state.uploadFailures.removeFirst())
                }
                upload.bytes += rest
                guard upload.bytes.count == upload.length else {
                    state.uploads[id] = upload
                    return .success(BlobUploadStep(received: Int64(upload.bytes.count), blobID: nil))
                }
                state.uploads[id] = nil
                state.blobs[id] = upload.bytes
                return .success(BlobUploadStep(received: Int64(upload.length), blobID: id))
            }
            progress(length)
            return try outcome.get()
        }

        func downloadBlob(id: String, from offset: Int64, maxBytes: Int64, into sink: any BlobSink) async throws {
            let (found, cut) = relay.state.withLock { state in
                state.downloadOffsets.append(offset)
                defer { state.downloadCutAt = nil }
                return (state.blobs[id], state.downloadCutAt)
            }
            if let pause = relay.state.withLock({ $0.downloadPause }) { try? await Task.sleep(for: pause) }
            guard let blob = found else { throw DeliveryFailure.rejected(status: 404, code: "not_found") }
            var position = Int(offset)
            while position < blob.count {
                if let cut, position >= cut { throw DeliveryFailure.unavailable(reason: "connection reset") }
                let end = min(position + 10_000, blob.count, cut.map { max($0, position + 1) } ?? .max)
                try sink.write(Array(blob[position..<end]))
                position = end
            }
        }

        private func requireToken() throws(DeliveryFailure) {
            guard relay.state.withLock({ $0.tokenValid[me] ?? false }) else { throw .unauthorized }
        }
    }
}

extension InMemoryRelay.Transport: DeviceDirectoryLookup {
    func deviceList(of account: IdentityKey) async throws(DeliveryFailure) -> DeviceList? {
        relay.state.withLock { $0.directories[account.rawRepresentation] }
    }
}
