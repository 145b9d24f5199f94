import HushCrypto
import HushProtocol
import HushStore

/// A contact's device list (docs/PROTOCOL.md §20.11, content 0x13):
/// checked against the list held of that account (§20.3) and kept in its
/// place; a change of the devices is announced in the conversation.
extension ContentApplier {
    func applyDeviceList(_ bytes: [UInt8], content: Content, from contact: Contact, envelope: MailboxEnvelope) throws {
        let account = try IdentityKey(rawRepresentation: contact.identityKey)
        // The list held was checked when it was accepted: decoding it again
        // only re-reads it (a list that no longer decodes is a damaged store).
        var held: DeviceList?
        if let kept = try store.contactDeviceLists.list(contactId: contact.id) {
            do throws(ProtocolError) { held = try DeviceList.decode(kept, account: account) } catch {
                throw MessengerError.missingLocalState("the device list kept for \(contact.name) no longer reads: \(error.description)")
            }
        }
        let verifier = DeviceListVerifier(account: account, current: held)
        let outcome: DeviceListVerifier.Outcome
        do throws(ProtocolError) {
            outcome = try verifier.check(bytes)
        } catch .deviceListRefused(.notNewer) {
            // An older list arriving after a newer one (envelopes are not
            // ordered across sessions): the one held stays.
            return
        } catch .deviceListRefused(.signerNotActive) {
            // Signed by a device linked after the list held, in a list this
            // client missed (§20.3): the held list stays. §20.11 has the
            // receiver catch up from the directory (§20.9); until this
            // client reads it, the next list from an active signer does.
            return
        } catch {
            throw MessengerError.protocolFailure("\(contact.name) sent a device list that is refused: \(error.description)")
        }
        guard case let .accepted(change) = outcome else { return }
        let now = dependencies.clock.now()
        try store.contactDeviceLists.keep(bytes, counter: change.list.counter, contactId: contact.id, at: now)
        guard let text = DeviceListNotice.text(for: change, first: held == nil) else { return }
        let conversation = try dependencies.conversation(with: contact)
        let notice = NewMessage(conversationId: conversation, serverId: envelope.serverID, clientMessageId: content.id.description,
                                direction: .incoming, sender: contact.address, body: text, contentType: DeviceListNotice.contentType,
                                status: .delivered, createdAt: now, relayTimestamp: envelope.relayTimestamp)
        // No receipt: the notice is this client's, not a message the contact wrote.
        guard case let .inserted(id) = try store.messages.insert(notice), let stored = try store.messages.message(id: id) else { return }
        try dependencies.emit(contact.standing == .accepted ? .received(stored, contact: contact.name)
                                                            : .request(stored, contact: contact.name, contactID: contact.id))
    }
}
