import HushRelayAPI
import Synchronization

/// The origins a login signature may name (`AuthChallenge`): the listen
/// address, whose port is known only once bound (port 0 picks one), hence
/// the lock; and the configured ones (a DNS name, a reverse proxy's URL).
/// The listen address stays accepted beside them: only someone who reaches
/// that address can use it, and an operator's own health checks do.
final class AcceptedOrigins: Sendable {
    private let configured: [RelayOrigin]
    private let listening: Mutex<[RelayOrigin]>
    private let scheme: String

    init(configuration: RelayConfiguration) {
        configured = configuration.origins
        scheme = configuration.tls == nil ? "http" : "https"
        listening = Mutex(Self.listening(scheme: scheme, host: configuration.host, port: configuration.port))
    }

    /// Called with the bound port.
    func bound(host: String, port: Int) {
        listening.withLock { $0 = Self.listening(scheme: scheme, host: host, port: port) }
    }

    var all: [RelayOrigin] { configured + listening.withLock { $0 }.filter { !configured.contains($0) } }

    /// `http://HOST:PORT` (`https://` with TLS); for a loopback host also the other names of this
    /// machine, since a client may spell it either way. None for a wildcard
    /// host: no client reaches `0.0.0.0`.
    static func listening(scheme: String, host: String, port: Int) -> [RelayOrigin] {
        if ["0.0.0.0", "::", "[::]"].contains(host) { return [] }
        let own = RelayOrigin(scheme: scheme, host: host, port: port)
        guard own.isLoopback else { return [own] }
        let loopback = ["127.0.0.1", "localhost", "::1"].map { RelayOrigin(scheme: scheme, host: $0, port: port) }
        return [own] + loopback.filter { $0 != own }
    }
}
