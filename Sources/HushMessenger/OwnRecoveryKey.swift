import HushCrypto
import HushProtocol
import HushStore

/// The account's recovery key on every device of the account
/// (docs/PROTOCOL.md §20.14): a revocation replaces it on the revoking
/// device, since the revoked one holds the old key, and the new key goes to
/// each of the account's other active devices (content `0x18`), on the
/// sessions with them, after the list that revokes the device. Each session
/// remembers the key last sealed on it, so a key not sent yet (no session
/// then, no conversation to file it under, an announcement that failed)
/// goes at a later pass, and a new session gets it again. Each device keeps
/// the key with the higher list counter, so keys handed on in any order
/// settle on the newest; the backups a device makes afterwards are sealed
/// under it.
enum OwnRecoveryKey {
    /// The key kept here as a content for our device `peer`, with its list
    /// counter, when it was not sealed to that device yet; nil when no
    /// revocation replaced the keystore's key, or the device has it.
    static func owed(to peer: [UInt8], _ dependencies: MessengerDependencies) throws -> (content: [UInt8], counter: UInt64)? {
        guard let kept = try dependencies.store.recoveryKeys.current(),
              kept.listCounter > (try dependencies.store.ownDeviceSessions.recoveryKeySent(deviceKey: peer)) else { return nil }
        let content = try Content(id: MessageID.random(using: dependencies.random), sentAt: UInt64(dependencies.clock.now()),
                                  body: .recoveryKey(listCounter: kept.listCounter, key: kept.key)).encoded()
        return (content, kept.listCounter)
    }

    /// Keeps `key`, sent by our active device `sender`, when its list
    /// counter is above the one kept; `sender` holds it, so it is not sent
    /// back. A counter above our newest list is refused: the list that
    /// revoked a device goes before the key on the session, so no honest
    /// device sends one. Joins the caller's transaction.
    static func adopt(_ key: SecureBytes, listCounter: UInt64, from sender: [UInt8], _ dependencies: MessengerDependencies) throws {
        let store = dependencies.store
        guard let latest = try store.deviceLists.latestCounter(), listCounter <= latest else {
            throw MessengerError.protocolFailure("another device of this account sent a recovery key for device list \(listCounter), which this device does not hold")
        }
        try store.recoveryKeys.keepIfNewer(key, listCounter: listCounter)
        if try store.ownDeviceSessions.recoveryKeySent(deviceKey: sender) < listCounter {
            try store.ownDeviceSessions.setRecoveryKeySent(listCounter, deviceKey: sender)
        }
    }
}
