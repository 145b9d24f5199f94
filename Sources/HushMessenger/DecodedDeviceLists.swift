import HushProtocol

/// Device lists as last decoded, by account (a contact's held list, and
/// our own), with the bytes they were decoded from. Decoding checks the
/// list's signatures again (two, and one per entry), and a list is read for
/// every envelope sealed to a contact with devices and every envelope that
/// arrives (is its sender one of our devices, or one of a contact's?): the
/// store's bytes are still read each time, so a list another process kept
/// is decoded anew. Confined, as the store, to the messenger's isolation.
final class DecodedDeviceLists {
    private var lists: [[UInt8]: (bytes: [UInt8], list: DeviceList)] = [:]

    /// `bytes` decoded as `account`'s list: the one decoded before when
    /// the bytes are the same.
    func decode(_ bytes: [UInt8], account: IdentityKey) throws(ProtocolError) -> DeviceList {
        let key = account.rawRepresentation
        if let kept = lists[key], kept.bytes == bytes { return kept.list }
        let list = try DeviceList.decode(bytes, account: account)
        lists[key] = (bytes, list)
        return list
    }
}
