/// What a device may be called in a device list (docs/PROTOCOL.md §20.2):
/// 1 to 64 bytes of UTF-8 with no control character (Unicode category Cc)
/// and no bidirectional formatting character, the set §10.5 refuses in
/// reactions. Every device of the account and every contact shows it, so it
/// is checked on the wire as well as sanitised on display.
enum DeviceName {
    static func check(_ bytes: [UInt8]) throws(ProtocolError) -> String {
        guard !bytes.isEmpty else { throw .deviceListRefused(.badName) }
        guard bytes.count <= DeviceLimits.maxNameLength else { throw .deviceListRefused(.nameTooLong) }
        guard let name = String(validating: bytes, as: UTF8.self) else { throw .deviceListRefused(.badName) }
        let forbidden = name.unicodeScalars.contains { scalar in
            scalar.properties.generalCategory == .control || ReactionEmoji.bidirectionalFormatting.contains(scalar.value)
        }
        guard !forbidden else { throw .deviceListRefused(.badName) }
        return name
    }
}
