import HushCrypto
import HushProtocol
import HushStore

/// The session a content for a contact is sealed on first: its request is
/// the one that carries the message in history (its status, its resend), and
/// `DeviceFanOut` seals the same content again for the contact's other
/// devices. It is the contact's account-key session, which stands for the
/// device that keeps the account key (docs/PROTOCOL.md §20.13); once the
/// list held of the contact revokes that device, the account key is retired
/// (§20.14) and it is the session with the first active device of the list,
/// in list order, that we hold one with. Its request then goes to that
/// device's mailbox (a recipients row, as a device's copy does).
struct PrimarySession {
    let slot: SessionSlot
    let session: Session

    /// The device whose mailbox the request goes to; nil for the account key's.
    var device: [UInt8]? { slot.deviceKey }

    /// The primary session for `contact`, or `missingLocalState` saying why there is none.
    static func load(for contact: Contact, _ dependencies: MessengerDependencies) throws -> PrimarySession {
        guard try dependencies.accountKeyRetired(contact) else {
            return PrimarySession(slot: SessionSlot(store: dependencies.store, contactId: contact.id, deviceKey: nil),
                                  session: try dependencies.loadSession(contactId: contact.id))
        }
        guard let primary = try firstDevice(of: contact, dependencies) else {
            throw MessengerError.missingLocalState("no session with any device of \(contact.name) yet: the device that kept "
                + "their account key was revoked, so nothing goes to that key, and a session with each of their other devices "
                + "starts from the relay's keys at the next sync (`hush sync`)")
        }
        return primary
    }

    /// Whether there is one for `contact` (a session to seal on).
    static func exists(for contact: Contact, _ dependencies: MessengerDependencies) throws -> Bool {
        guard try dependencies.accountKeyRetired(contact) else { return try dependencies.store.sessions.load(contactId: contact.id) != nil }
        return try firstDevice(of: contact, dependencies) != nil
    }

    /// The session with the first active device of the list held of
    /// `contact` that we hold one with; a state that no longer decodes (or
    /// an ended one) is none: the next pass starts one.
    private static func firstDevice(of contact: Contact, _ dependencies: MessengerDependencies) throws -> PrimarySession? {
        for device in try DeviceFanOut.activeDevices(of: contact, dependencies) {
            let slot = SessionSlot(store: dependencies.store, contactId: contact.id, deviceKey: device)
            if let session = try slot.load().flatMap({ try? Session(serialized: $0) }) {
                return PrimarySession(slot: slot, session: session)
            }
        }
        return nil
    }

    /// Addresses the request `requestID` (just queued with the envelope
    /// sealed on this session) to the device, when it is one, and saves the
    /// advanced session. Joins the caller's transaction.
    func queued(_ requestID: String, at time: Int64) throws {
        if let device { try slot.store.groups.addRecipients([device], requestId: requestID) }
        try slot.save(session, at: time)
    }
}

extension MessengerDependencies {
    /// Whether the list held of `contact` revokes the device that kept its
    /// account key (docs/PROTOCOL.md §20.14): nothing is sealed to that key
    /// any more, and nothing is accepted from it.
    func accountKeyRetired(_ contact: Contact) throws -> Bool {
        try heldDeviceList(of: contact)?.retiresAccountKey ?? false
    }
}
