/// The rules for client-chosen request ids, shared so clients can check before sending.
public enum RequestIDRules {
    public static func isValid(_ id: String) -> Bool {
        guard (1...RelayLimits.maxRequestIDLength).contains(id.utf8.count) else { return false }
        return id.utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5a) || (byte >= 0x61 && byte <= 0x7a)
                || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
        }
    }
}
