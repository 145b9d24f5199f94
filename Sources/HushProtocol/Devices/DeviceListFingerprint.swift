import HushCrypto

/// The device-list fingerprint (docs/PROTOCOL.md §20.4): 30 digits that
/// change exactly when the set of an account's active devices changes (not
/// on a rename, a revocation record kept, or a new counter), for `hush
/// verify` to show beside the safety number. It is §12.1's numeric
/// fingerprint of one side, with key = the account identity key and stable
/// id = "hush/v1/device-list-fingerprint" 0x00 || n (u8) || n × (device id || device key)
/// over the active devices in list order; the safety number itself is unchanged.
public struct DeviceListFingerprint: Sendable, Equatable {
    /// 30 digits.
    public let digits: String

    public init(_ list: DeviceList) {
        let active = list.activeDevices
        var stableID = Labels.deviceListFingerprint
        stableID.append(UInt8(active.count))
        for entry in active { stableID += entry.id.bytes + entry.key.rawRepresentation }
        let hash = try! NumericFingerprint.hash(key: list.account.rawRepresentation, stableID: stableID)
        digits = NumericFingerprint.digits(hash)
    }

    /// "12345 67890 …": 6 groups of 5 digits.
    public var grouped: String {
        let characters = Array(digits)
        return stride(from: 0, to: characters.count, by: 5).map { String(characters[$0..<$0 + 5]) }.joined(separator: " ")
    }

    /// Compares digits a user typed or read (spaces ignored) in constant time.
    public func matches(displayed: String) -> Bool {
        ConstantTime.equals(Array(displayed.utf8.filter { $0 != UInt8(ascii: " ") }), Array(digits.utf8))
    }
}
