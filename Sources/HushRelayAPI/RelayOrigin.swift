import Foundation

/// A relay's origin as both sides write it into the auth signature: the
/// scheme, host and port a client believes it talks to, in one canonical
/// spelling so that client and relay build the same bytes.
///
///     scheme "://" host ":" port
///
/// scheme `http` or `https` (lowercase); host lowercased, an IPv6 address in
/// brackets; the port always written in decimal (80 / 443 when the URL
/// leaves it out). Path, query, fragment and user info are not part of it.
/// `http://Relay.Example.org/` → `http://relay.example.org:80`.
public struct RelayOrigin: Sendable, Hashable, CustomStringConvertible {
    public let scheme: String
    public let host: String
    public let port: Int

    public init(scheme: String, host: String, port: Int) {
        self.scheme = scheme.lowercased()
        let lowered = host.lowercased()
        self.host = lowered.contains(":") && !lowered.hasPrefix("[") ? "[\(lowered)]" : lowered
        self.port = port
    }

    /// Parses a relay URL (`http://127.0.0.1:8080`, `https://relay.example.org`).
    public init(url: String) throws(RelayOriginError) {
        guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased(),
              scheme == "http" || scheme == "https" else {
            throw .invalid("a relay URL starts with http:// or https://")
        }
        guard let host = components.host, !host.isEmpty else { throw .invalid("the relay URL has no host") }
        // Digits and dots only is an IPv4 address or a typo ("256.1.1.1", "10.0.0"), never a name:
        // refused here rather than sent to the resolver, which answers with something unhelpful.
        if host.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }) {
            let parts = host.split(separator: ".", omittingEmptySubsequences: false)
            guard parts.count == 4, parts.allSatisfy({ !$0.isEmpty && $0.count <= 3 && Int($0).map { $0 <= 255 } == true }) else {
                throw .invalid("the relay URL's host \(host) is not an IPv4 address (four numbers 0…255 with dots between them)")
            }
        }
        let port = components.port ?? (scheme == "https" ? 443 : 80)
        guard (1...65_535).contains(port) else { throw .invalid("the relay URL's port must be 1…65535") }
        self.init(scheme: scheme, host: host, port: port)
    }

    /// The host as a socket connects to it (an IPv6 address without brackets).
    public var connectableHost: String { host.hasPrefix("[") ? String(host.dropFirst().dropLast()) : host }

    /// The canonical spelling, the bytes that are signed.
    public var description: String { "\(scheme)://\(host):\(port)" }

    /// Whether the host is this machine (plain `http://` is only expected there).
    public var isLoopback: Bool {
        host == "localhost" || host == "[::1]" || host.hasPrefix("127.")
    }
}

public enum RelayOriginError: Error, Sendable, Equatable, CustomStringConvertible {
    case invalid(String)
    public var description: String {
        switch self { case let .invalid(why): "invalid relay URL: \(why)" }
    }
}
