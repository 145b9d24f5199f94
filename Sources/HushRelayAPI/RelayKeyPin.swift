import Foundation

/// A relay's key pin in a relay URL: `https://relay.example.org:8443#pin=PIN`,
/// PIN being the SHA-256 of the relay's TLS public key (SubjectPublicKeyInfo,
/// DER) in unpadded base64url (RFC 4648 §5): 43 characters. A client given a
/// pin trusts exactly that key, whatever certificate carries it, and no other.
public enum RelayKeyPin {
    public static func encode(_ pin: [UInt8]) -> String {
        Data(pin).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    public static func decode(_ text: String) -> [UInt8]? {
        guard text.utf8.count == 43, text.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }) else { return nil }
        let standard = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/") + "="
        guard let data = Data(base64Encoded: standard), data.count == 32 else { return nil }
        return Array(data)
    }

    /// Splits `https://host:port#pin=PIN` into the URL without its fragment and
    /// the pin; a fragment that is not a valid pin is an error (never ignored).
    public static func split(_ url: String) throws(RelayOriginError) -> (url: String, pin: [UInt8]?) {
        guard let hash = url.firstIndex(of: "#") else { return (url, nil) }
        let fragment = url[url.index(after: hash)...]
        guard fragment.hasPrefix("pin="), let pin = decode(String(fragment.dropFirst(4))) else {
            throw .invalid("the part after # must be pin= and 43 characters of base64url (the SHA-256 of the relay's public key)")
        }
        guard url.lowercased().hasPrefix("https://") else { throw .invalid("a key pin needs an https:// relay URL") }
        return (String(url[..<hash]), pin)
    }
}
