/// A request path as the relay logs it: every 64-hex-digit segment (an
/// identity key, a mailbox, a blob id) replaced by a placeholder, so logs never
/// hold an identity key (SECURITY.md, "What the relay logs").
struct LoggedPath: CustomStringConvertible {
    let description: String

    init(_ path: String) {
        description = path.split(separator: "/", omittingEmptySubsequences: false).map { segment in
            segment.utf8.count == 64 && segment.utf8.allSatisfy(\.isHexDigit) ? "{key}" : String(segment)
        }.joined(separator: "/")
    }
}

private extension UInt8 {
    var isHexDigit: Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(self) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(self)
            || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(self)
    }
}
