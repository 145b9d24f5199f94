import HushCrypto
import HushProtocol
import HushStore

/// A contact's devices (docs/PROTOCOL.md §20.12, as far as it is built): a
/// content sealed for a contact also goes, sealed again, on the session
/// with each active device of the contact's list that has one; the
/// contact's account-key session stands for its first device (§20.13).
/// Each device's envelope is a request of its own, deposited in that
/// device's mailbox. A revoked device is in no list's active entries, so
/// nothing more goes to it, and its session was ended when the list came.
///
/// Sessions with devices start from the relay's bundles after a pass
/// (`startMissingSessions`), for every active device that has none; a
/// device the relay has no bundle for (the first device, which keeps the
/// account key there) is reached through the account-key session.
final class DeviceFanOut {
    private let dependencies: MessengerDependencies
    /// Our own other devices, which get a transcript of what we send (§20.12).
    let own: OwnDevices
    private var store: MessageStore { dependencies.store }
    /// Devices the relay had no bundle for: asked again after a while, not at every pass.
    private var withoutBundle = BundleMisses()

    init(_ dependencies: MessengerDependencies) {
        self.dependencies = dependencies
        own = OwnDevices(dependencies)
    }

    /// After `content` (encoded as `encoded`) was sealed on `contact`'s
    /// primary session (`PrimarySession`: the account key's, or, once that
    /// is retired, the device `primary`'s): sealed again for each of the
    /// contact's other devices when it goes to every device, and as a
    /// transcript to our own other devices when they copy it. `messageId` is
    /// the message in history it carries, if any. Joins the caller's transaction.
    func fanOut(_ content: Content, encoded: [UInt8], to contact: Contact, conversation: Int64, messageId: Int64? = nil,
                primary: [UInt8]? = nil) throws {
        if content.body.goesToEveryDevice {
            for device in try activeDevices(of: contact) where device != primary {
                try seal(encoded, to: device, of: contact, conversation: conversation, messageId: messageId,
                         resendable: Sealer.isResentOnRequest(content.body))
            }
        }
        if content.body.isCopiedToOwnDevices { try own.sealTranscript(of: content, for: contact, conversation: conversation) }
    }

    /// The active devices of the list held of `contact`, other than its
    /// account key. Empty without a list.
    func activeDevices(of contact: Contact) throws -> [[UInt8]] {
        try Self.activeDevices(of: contact, dependencies)
    }

    static func activeDevices(of contact: Contact, _ dependencies: MessengerDependencies) throws -> [[UInt8]] {
        guard let list = try dependencies.heldDeviceList(of: contact) else { return [] }
        return list.activeDevices.map(\.key.rawRepresentation).filter { $0 != contact.identityKey }
    }

    /// Seals `encoded` on the session with `contact`'s device `device`,
    /// when we hold one, queues it for the device's mailbox, and keeps what
    /// a decryption error from that device needs to send it again
    /// (§20.12): the message it carries (`messageId`), or the content when
    /// it is `resendable` (`Sealer.isResentOnRequest`; a resend is resendable
    /// too: a newer session of the device may ask for it again, §10.1).
    /// Returns whether it sealed. Joins the caller's transaction.
    @discardableResult
    func seal(_ encoded: [UInt8], to device: [UInt8], of contact: Contact, conversation: Int64, messageId: Int64?,
              resendable: Bool) throws -> Bool {
        // A state that no longer decodes (or an ended one) is no session: one starts after the next pass.
        guard let state = try store.deviceSessions.load(contactId: contact.id, deviceKey: device),
              let session = try? Session(serialized: state) else { return false }
        let random = dependencies.random, now = dependencies.clock.now()
        let envelope = try session.seal(encoded, using: random)
        let requestID = Hex.encode(random.bytes(16))
        try store.outbox.enqueue(requestId: requestID, messageId: nil, conversationId: conversation, sealedPayload: envelope, at: now)
        try store.groups.addRecipients([device], requestId: requestID)
        if let messageId {
            try store.resends.recordEnvelope(digest: SHA256.hash(envelope), messageId: messageId, at: now)
        } else if resendable {
            try store.resends.recordContent(digest: SHA256.hash(envelope), contactId: contact.id, content: encoded,
                                            editOf: Content.editedMessageID(inEncoded: encoded), at: now)
        }
        try store.deviceSessions.save(state: session.serialized(), contactId: contact.id, deviceKey: device, at: now)
        return true
    }

    /// Starts a session, from the relay's bundle, with every active device
    /// of every accepted contact's list that has none, and with our own
    /// devices (`OwnDevices`). Best effort: a device whose bundle cannot be
    /// had now is tried again later.
    func startMissingSessions(isolation: isolated (any Actor)? = #isolation) async {
        await own.startMissingSessions()
        guard let contacts = try? store.contacts.all() else { return }
        for contact in contacts where contact.standing == .accepted && contact.verification != .changed {
            await startMissingSessions(with: contact)
        }
    }

    /// The same for one contact's devices: also right after the contact is
    /// added (its directory read), so the first message reaches every device
    /// of the account, not only the one the account key stands for.
    func startMissingSessions(isolation: isolated (any Actor)? = #isolation, with contact: Contact) async {
        // Nothing is sealed to a contact before the user accepts it, nor while its key change waits.
        guard contact.standing == .accepted, contact.verification != .changed, let devices = try? activeDevices(of: contact) else { return }
        for device in devices where withoutBundle.shouldAsk(device, now: dependencies.clock.now()) {
            guard (try? store.deviceSessions.load(contactId: contact.id, deviceKey: device)) == .some(nil),
                  let key = try? IdentityKey(rawRepresentation: device) else { continue }
            let session: Session
            switch await dependencies.startSession(withDevice: key) {
            case let .started(started): session = started
            case .noBundle: withoutBundle.missed(device, at: dependencies.clock.now()); continue
            case .notNow: continue
            }
            try? store.withinWrite { store in
                // Another process, or the device itself writing first, may have made one meanwhile: keep that.
                guard try store.deviceSessions.load(contactId: contact.id, deviceKey: device) == nil else { return }
                try store.deviceSessions.save(state: session.serialized(), contactId: contact.id, deviceKey: device,
                                              at: dependencies.clock.now())
                // Our chains of the groups we share go to the new device too (§20.17): it may not hold them.
                try OwnSenderChains(dependencies).handOver(to: contact)
            }
        }
    }
}

extension ContentBody {
    /// Whether a content sealed for a contact also goes to each of its
    /// devices (§20.12): what a conversation shows and its receipts,
    /// credentials, profiles and our device list (so a contact's linked
    /// device learns of a revocation too, §20.14), and a small group's
    /// states, chains and leaves (every device of a member is in the group,
    /// §20.17). Not a decryption error (sealed to the device whose envelope
    /// it reports), typing (ephemeral, sealed to each device by
    /// `LiveSync.sendTyping`), a large group's states (they stay with the
    /// account key), nor what only an account's own devices send.
    var goesToEveryDevice: Bool {
        switch self {
        case .decryptionError, .typingStarted, .typingStopped, .largeGroupUpdate, .largeGroupRekey, .sentTranscript: false
        default: true
        }
    }
}
