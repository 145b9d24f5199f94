import HushCrypto

/// What a contact (or another device of the account) keeps of an account's
/// devices: the last device list it accepted, and the rules of
/// docs/PROTOCOL.md §20.3 step 9 that a new list must keep relative to it.
/// Counters only go up, a revoked device stays revoked, no device leaves the
/// list, and only a device active in the accepted list may sign the next —
/// so a replayed old list, a list that un-revokes a device, and a list a
/// revoked device wrote with the account key it still holds are refused.
/// A refused list changes nothing.
public struct DeviceListVerifier: Sendable {
    public let account: IdentityKey
    /// The last list accepted; nil before the first.
    public private(set) var current: DeviceList?

    /// A verifier for `account`, holding `current` if one was accepted before
    /// (its counter is the one a new list must exceed; without one, 0).
    public init(account: IdentityKey, current: DeviceList? = nil) {
        self.account = account
        self.current = current
    }

    public var acceptedCounter: UInt64 { current?.counter ?? 0 }

    public enum Outcome: Sendable, Equatable {
        /// The very list already held (fetched again): nothing changes.
        case unchanged
        case accepted(DeviceListChange)
    }

    /// Checks `bytes` against every rule and, if they hold, makes it the current list.
    public mutating func accept(_ bytes: [UInt8]) throws(ProtocolError) -> Outcome {
        let outcome = try check(bytes)
        if case let .accepted(change) = outcome { current = change.list }
        return outcome
    }

    /// The same checks, changing nothing.
    public func check(_ bytes: [UInt8]) throws(ProtocolError) -> Outcome {
        if let current, ConstantTime.equals(bytes, current.encoded) { return .unchanged }
        let list = try DeviceList.decode(bytes, account: account)
        // 9. Against the list held (none: counter 0, and any listed signer).
        guard list.counter > acceptedCounter else { throw .deviceListRefused(.notNewer) }
        guard let current else { return .accepted(DeviceListChange(previous: nil, list: list)) }
        guard current.entry(list.signer)?.isActive == true else { throw .deviceListRefused(.signerNotActive) }
        for held in current.entries {
            guard let now = list.entry(held.id) else { throw .deviceListRefused(.droppedDevice) }
            guard held.isActive || !now.isActive else { throw .deviceListRefused(.unrevoked) }
            // A revocation's time may move (two devices revoking one at once merge to the earlier), its fact may not.
            guard ConstantTime.equals(now.key.rawRepresentation, held.key.rawRepresentation), now.addedAt == held.addedAt else {
                throw .deviceListRefused(.changedDevice)
            }
            // The device that keeps the account key stays marked: no list moves the account key's sessions elsewhere.
            guard !held.keepsAccountKey || now.keepsAccountKey else { throw .deviceListRefused(.changedDevice) }
        }
        // A mark may first appear only on a device already listed: the first device is in every list.
        if current.accountKeyDevice == nil, let marked = list.accountKeyDevice, current.entry(marked.id) == nil {
            throw .deviceListRefused(.changedDevice)
        }
        return .accepted(DeviceListChange(previous: current, list: list))
    }
}

/// What an accepted list changed, for the conversation to announce (a new
/// device is shown as a changed safety number is).
public struct DeviceListChange: Sendable, Equatable {
    public let list: DeviceList
    /// Active now, and not active (nor listed) before.
    public let added: [DeviceListEntry]
    /// Revoked now, active before.
    public let revoked: [DeviceListEntry]
    /// Whether the fingerprint of §20.4 changed.
    public let fingerprintChanged: Bool

    init(previous: DeviceList?, list: DeviceList) {
        self.list = list
        added = list.activeDevices.filter { previous?.entry($0.id) == nil }
        revoked = list.entries.filter { !$0.isActive && previous?.entry($0.id)?.isActive == true }
        fingerprintChanged = previous.map { $0.fingerprint != list.fingerprint } ?? true
    }
}
