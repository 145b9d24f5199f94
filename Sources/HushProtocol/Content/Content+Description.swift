/// Contents carry plaintext and bearer secrets (attachment keys, delivery
/// credentials): never print them, not even through `dump` or a failing test.
extension Content: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public var description: String { "Content(\(id), type 0x\(String(body.typeByte, radix: 16)), body redacted)" }
    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: ["id": id, "sentAt": sentAt], displayStyle: .struct) }
}

extension ContentBody: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public var description: String { "ContentBody(type 0x\(String(typeByte, radix: 16)), redacted)" }
    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .enum) }
}
