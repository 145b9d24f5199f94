import HushProtocol

/// Contacts' device lists as last decoded, by the bytes they were decoded
/// from. Decoding checks the list's signatures again (two, and one per
/// entry), and the held list is read for every envelope sealed to a
/// contact with devices and every envelope one of its devices seals: the
/// store's bytes are still read each time, so a list another process kept
/// is decoded anew. Confined, as the store, to the messenger's isolation.
final class DecodedDeviceLists {
    private var lists: [Int64: (bytes: [UInt8], list: DeviceList)] = [:]

    /// The list decoded from `bytes` for `contactId`, if it was.
    func list(contactId: Int64, bytes: [UInt8]) -> DeviceList? {
        guard let kept = lists[contactId], kept.bytes == bytes else { return nil }
        return kept.list
    }

    func keep(_ list: DeviceList, contactId: Int64, bytes: [UInt8]) {
        lists[contactId] = (bytes, list)
    }
}
