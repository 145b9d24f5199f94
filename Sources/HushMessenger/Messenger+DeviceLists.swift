import HushProtocol
import HushStore

/// Device lists between accounts (docs/PROTOCOL.md §20.11): ours, sent to
/// every contact when it changes; theirs, held per contact and shown by
/// `hush verify` with its fingerprint (§20.4).
extension Messenger {
    /// Seals our current device list for every accepted contact that lacks
    /// it (after a link or a revocation), in one transaction; then posts the
    /// outbox. Contacts added later get it with the first thing sealed to
    /// them. Returns how many it was queued for now.
    @discardableResult
    public func announceDeviceList() async throws -> Int {
        let queued = try store.write { store in
            var queued = 0
            for contact in try store.contacts.all() where try sealer.handOverDeviceList(to: contact) { queued += 1 }
            return queued
        }
        await outgoing.flush()
        return queued
    }

    /// The device list held of the contact `name` (the last one it sent
    /// that verified, §20.3); nil when it sent none: an account of one
    /// device, or one whose list has not reached us yet.
    public func deviceList(ofContact name: String) throws -> DeviceList? {
        guard let contact = try store.contacts.contact(named: name) else { throw MessengerError.unknownContact(name) }
        guard let bytes = try store.contactDeviceLists.list(contactId: contact.id) else { return nil }
        let account = try IdentityKey(rawRepresentation: contact.identityKey)
        do throws(ProtocolError) {
            return try DeviceList.decode(bytes, account: account)
        } catch {
            throw MessengerError.missingLocalState("the device list kept for \(name) no longer reads: \(error.description)")
        }
    }
}
