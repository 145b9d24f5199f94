import Foundation
import HushCrypto
import HushProtocol
import HushRelayAPI
import HushRelayClient

/// The link's mailbox at the relay (docs/PROTOCOL.md §20.6): a throwaway
/// relay identity derived from the link code's secret, which the existing
/// device registers and both devices log in as. Both deposit into it (with
/// the credential the code also gives) and both read it; each reads only
/// the other side's envelopes and acknowledges (deletes) those it has read.
final class LinkMailbox {
    let client: RelayClient
    let side: LinkEnvelope.Sender
    /// Checked between reads while waiting: a stop ends the wait as a failure.
    private let stop: LinkStop?
    private let credential: [UInt8]
    /// The mailbox's raw identity key: where both sides deposit.
    private let mailbox: [UInt8]
    private var sent = 0
    /// Names this side's deposits: another device with the same code (a
    /// racer) deposits under its own ids, not as a conflicting repeat of ours.
    private let requestPrefix = "link-" + Hex.encode(SystemRandom().bytes(8)) + "-"
    /// The other side's envelopes already looked at, by relay id.
    private var seen: Set<UInt64> = []
    /// The new device's next channel message number (§20.6: `device` was 0),
    /// kept here so that a failure can send `ended` with the right one.
    var nextNewToExisting: UInt8 = 1
    /// How often the mailbox is read while waiting.
    static let pollInterval: Duration = .milliseconds(150)

    private init(client: RelayClient, side: LinkEnvelope.Sender, credential: [UInt8], mailbox: [UInt8], stop: LinkStop?) {
        self.client = client
        self.stop = stop
        self.mailbox = mailbox
        self.side = side
        self.credential = credential
    }

    /// Logs in as the link's mailbox; the existing device first registers it
    /// (with prekeys nobody will use: registration requires them) and its
    /// delivery credential.
    static func open(_ keys: LinkKeys, relayURL: String, side: LinkEnvelope.Sender, stop: LinkStop? = nil) async throws -> LinkMailbox {
        let identity = try keys.mailboxIdentity()
        let credential = keys.mailboxCredential.copyBytes()
        let client = RelayClient(baseURL: relayURL)
        try await relayCall {
            if side == .existingDevice {
                let signed = try PrivatePrekey.generate(kind: .signedX25519, id: 1, identity: identity)
                let lastResort = try PrivatePrekey.generate(kind: .lastResortKEM, id: 1, identity: identity)
                try await client.register(identity: identity.signingKey, signedPrekey: signed.signed,
                                          lastResortKEMPrekey: lastResort.signed, oneTimePrekeys: [])
                try await client.authenticate(identity: identity.signingKey)
                try await client.updateCredentials(add: [credential])
            } else {
                do {
                    try await client.authenticate(identity: identity.signingKey)
                } catch let error as RelayClientError where error.status == 404 {
                    throw HushError(.notFound, reason: "no device is waiting at \(relayURL) with this link code",
                                    suggestion: "make a new code with `hush device link` on a device of the account (a code links once, and only through the relay it names)")
                }
            }
        }
        return LinkMailbox(client: client, side: side, credential: credential, mailbox: identity.publicKey.rawRepresentation, stop: stop)
    }

    /// Deposits `message`; safe to repeat (the request id names this side and its count).
    func send(_ message: [UInt8]) async throws {
        let envelope = try LinkEnvelope.wrap(message, from: side)
        let requestID = requestPrefix + String(sent)
        try await Self.relayCall {
            _ = try await client.deposit(recipient: mailbox, envelope: envelope, requestID: requestID, credential: credential)
        }
        sent += 1
    }

    /// Waits for the next envelope of the other side that `accept` takes
    /// (returns non-nil for), reading the mailbox until `deadline`. The other
    /// side's envelopes it looked at are acknowledged once it has taken one
    /// or passed them over; when `accept` throws, none (a device that failed
    /// deletes nothing another device may still need).
    /// `onTimeout`: the error when the deadline passes, when the wait has a
    /// meaning of its own to tell (else: no answer from the other device).
    func next<T>(until deadline: ContinuousClock.Instant, waitingFor what: String, onTimeout: HushError? = nil,
                 _ accept: ([UInt8]) throws -> T?) async throws -> T {
        while true {
            if let taken = try await poll(accept) { return taken }
            if stop?.isRequested == true { throw LinkStop.stopped }
            guard ContinuousClock.now < deadline else {
                throw onTimeout ?? HushError(.other, reason: "the link ended: no answer from the other device (waiting for \(what))",
                                             suggestion: "start again with a new code on both devices")
            }
            try await Task.sleep(for: Self.pollInterval)
        }
    }

    /// Reads the mailbox once: the first envelope of the other side that
    /// `accept` takes, or nil. Envelopes passed over are acknowledged as in `next`.
    func poll<T>(_ accept: ([UInt8]) throws -> T?) async throws -> T? {
        let page = try await Self.relayCall { try await client.sync(after: 0) }
        var looked: [UInt64] = []
        defer { if !looked.isEmpty { Task { [client, looked] in _ = try? await client.ack(ids: looked) } } }
        var failed = false
        defer { if failed { looked = [] } }
        for message in page.messages.sorted(by: { $0.messageID < $1.messageID }) where !seen.contains(message.messageID) {
            // Damaged on the way: read it again at the next poll.
            guard EnvelopeDigest.matches(message.envelopeSHA256?.bytes, message.envelope.bytes) else { continue }
            guard let (sender, body) = LinkEnvelope.unwrap(message.envelope.bytes) else {
                seen.insert(message.messageID)
                looked.append(message.messageID)
                continue
            }
            guard sender != side else { continue }
            seen.insert(message.messageID)
            looked.append(message.messageID)
            do {
                if let taken = try accept(body) { return taken }
            } catch {
                failed = true
                throw error
            }
        }
        return nil
    }

    /// Acknowledges what is left of the other side's envelopes: the relay
    /// keeps nothing of the link that this side has read.
    func finish() async {
        _ = try? await client.ack(ids: Array(seen))
    }

    /// The relay client's failures in HushKit's terms.
    static func relayCall<T>(_ body: () async throws -> T) async throws -> T {
        do { return try await body() } catch let error as RelayClientError {
            throw HushError(.relayUnavailable, reason: "the relay could not be used during the link", suggestion: error.description)
        }
    }
}
