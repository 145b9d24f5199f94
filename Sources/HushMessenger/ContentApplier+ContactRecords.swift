import HushCrypto
import HushProtocol
import HushStore

/// Contact records from another device of our account (docs/PROTOCOL.md
/// §20.16), applied field by field where newer than what this device holds
/// of the contact: a contact it lacks is added (a session with it starts
/// after the pass), a request decided there is decided here (accepting one
/// joins the groups it invited us to, as accepting here does), a block, a
/// verification or a name follows, a removal removes the contact with its
/// conversation. What changes here is not sent back: the other device
/// made it. Joins the caller's transaction.
extension ContentApplier {
    func applyContactRecords(_ records: [ContactRecord], own: OwnDevices) throws {
        let account = dependencies.identity.publicKey.rawRepresentation
        for record in records where record.identityKey.rawRepresentation != account {
            try apply(record, own: own)
        }
    }

    private func apply(_ record: ContactRecord, own: OwnDevices) throws {
        let key = record.identityKey.rawRepresentation
        // The old key of a contact whose changed key the user accepted here: never added back.
        guard try !store.contacts.wasReplaced(identityKey: key) else { return }
        let now = dependencies.clock.now()
        let stateAt = ContactChangeTimes.received(record.stateChangedAt, now: now)
        let verifiedAt = ContactChangeTimes.received(record.verifiedChangedAt, now: now)
        let nameAt = ContactChangeTimes.received(record.nameChangedAt, now: now)
        guard let contact = try store.contacts.contact(identityKey: key) else {
            if record.state == .removed {
                // Remembered, so that an older record of the contact does not add it back.
                try store.contacts.recordRemoval(identityKey: key, at: stateAt, sent: true)
                return
            }
            // Removed here after this was decided; or a key one of our contacts changed to, still
            // waiting here (the user decides that on each device).
            guard stateAt > (try store.contacts.removedAt(identityKey: key) ?? Int64.min),
                  try store.contacts.contact(pendingIdentityKey: key) == nil else { return }
            try add(record, times: ContactChangeTimes(standing: stateAt, verification: verifiedAt, name: nameAt), own: own)
            return
        }
        guard var times = try store.contacts.changeTimes(contactId: contact.id) else { return }
        if record.state == .removed {
            // Only a removal later than every change made here: what was decided since keeps the contact.
            // A request is this device's own (a stranger who wrote again after the removal): it stays.
            guard stateAt > times.latest, contact.standing != .requested else { return }
            try store.contacts.remove(contactId: contact.id)
            try store.contacts.recordRemoval(identityKey: key, at: stateAt, sent: true)
            return
        }
        let standing: ContactStanding = record.state == .blocked ? .blocked : .accepted
        // Equal times (two devices holding one change, or contacts from before records, all stamped
        // with their creation): blocked wins over accepted, verified over not, the bytewise greater
        // name over the other, so both sides settle on the same.
        if stateAt > times.standing || (stateAt == times.standing && standing == .blocked && contact.standing == .accepted) {
            if contact.standing != standing {
                try store.contacts.setStanding(standing, contactId: contact.id)
                if standing == .blocked { try store.invitations.removeAll(contactId: contact.id) }
                if standing == .accepted, contact.standing == .requested, let accepted = try store.contacts.contact(id: contact.id) {
                    try receivedGroupStates.applyInvitations(from: accepted)
                }
                if standing == .accepted { try own.reachContact(contact.id) }
            }
            times.standing = stateAt
        }
        // A changed key waiting for the user is decided on each device (§12).
        if verifiedAt > times.verification || (verifiedAt == times.verification && record.verified), contact.verification != .changed {
            try store.contacts.setVerification(record.verified ? .verified : .unverified, contactId: contact.id)
            times.verification = verifiedAt
        }
        // Another contact (or group) here may have the name: this one keeps its own until one of them is renamed.
        if nameAt > times.name || (nameAt == times.name && Array(contact.name.utf8).lexicographicallyPrecedes(Array(record.name.utf8))),
           try dependencies.freeContactName(from: record.name) == record.name {
            try store.contacts.rename(contactId: contact.id, to: record.name)
            times.name = nameAt
        }
        try store.contacts.setChangeTimes(times, contactId: contact.id)
    }

    /// A contact this device did not have: added under the record's name
    /// (with a number after it when another contact or group here has it).
    private func add(_ record: ContactRecord, times: ContactChangeTimes, own: OwnDevices) throws {
        let name = try dependencies.freeContactName(from: record.name)
        let now = dependencies.clock.now()
        let contact = try store.contacts.add(name: name, address: record.identityKey.address.description,
                                             identityKey: record.identityKey.rawRepresentation,
                                             standing: record.state == .blocked ? .blocked : .accepted, at: now, decided: false)
        _ = try store.conversations.conversation(forContact: contact.id, title: name, at: now)
        if record.verified { try store.contacts.setVerification(.verified, contactId: contact.id) }
        try store.contacts.setChangeTimes(times, contactId: contact.id)
        guard record.state == .accepted else { return }
        // Its devices are in its directory (§20.9), read after this pass; the account-key session starts then too.
        try store.contacts.setDeviceListStale(true, contactId: contact.id)
        try own.reachContact(contact.id)
    }
}
