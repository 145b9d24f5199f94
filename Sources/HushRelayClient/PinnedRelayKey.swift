import AsyncHTTPClient
import HushCrypto
import HushRelayAPI
import NIOCore
import NIOPosix
import NIOSSL
import NIOTLS
import Synchronization

/// Trusting exactly the key a relay URL pins (`RelayKeyPin`). One TLS
/// handshake fetches the relay's certificate and compares the SHA-256 of its
/// public key with the pin; only a match is kept, and every later connection
/// (HTTP and WebSocket) trusts that certificate alone, so a mismatch is an
/// error and never a fall-back to the system's trust store.
enum PinnedRelayKey {
    /// HTTP clients by host, port and pin, kept for the life of the process
    /// like `RelayClient.failFastHTTPClient` (one per pinned relay).
    private static let clients = Mutex<[String: (HTTPClient, TLSConfiguration)]>([:])

    static func client(host: String, port: Int, pin: [UInt8]) async throws(RelayClientError) -> (HTTPClient, TLSConfiguration) {
        let key = "\(host):\(port)#\(RelayKeyPin.encode(pin))"
        if let known = clients.withLock({ $0[key] }) { return known }
        let leaf = try await certificate(host: host, port: port, pin: pin).leaf
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.trustRoots = .certificates([leaf])
        // The pin, not the name, identifies the relay (a self-signed key has no name a CA vouched for).
        tls.certificateVerification = .noHostnameVerification
        var configuration = HTTPClient.Configuration.singletonConfiguration
        configuration.connectionPool.retryConnectionEstablishment = false
        configuration.timeout.connect = .seconds(5)
        configuration.tlsConfiguration = tls
        return clients.withLock { known in
            if let existing = known[key] { return existing }
            let made = (HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration), tls)
            known[key] = made
            return made
        }
    }

    /// The relay's leaf certificate, when its key matches `pin`, and how many
    /// certificates the relay presented (more than one: a CA-issued chain).
    static func certificate(host: String, port: Int, pin: [UInt8]) async throws(RelayClientError) -> (leaf: NIOSSLCertificate, presented: Int) {
        let seen = Mutex<(certificate: NIOSSLCertificate?, pin: [UInt8]?, count: Int)>((nil, nil, 0))
        // Made before connecting and awaited directly: looking the waiter up in the
        // pipeline afterwards races with a handshake that already ended and closed it.
        let handshake = HTTPClient.defaultEventLoopGroup.next().makePromise(of: Void.self)
        do {
            var tls = TLSConfiguration.makeClientConfiguration()
            // The callback below replaces chain and name checks; with `.none` its
            // answer would be ignored, so the mode must stay a verifying one.
            tls.certificateVerification = .noHostnameVerification
            let context = try NIOSSLContext(configuration: tls)
            let channel = try await ClientBootstrap(group: HTTPClient.defaultEventLoopGroup)
                .connectTimeout(.seconds(5))
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        let handler = try NIOSSLClientHandler(context: context, serverHostname: nil) { certificates, promise in
                            let presented = certificates.first.flatMap { try? SHA256.hash($0.extractPublicKey().toSPKIBytes()) }
                            seen.withLock { $0 = (certificates.first, presented, certificates.count) }
                            promise.succeed(presented.map { ConstantTime.equals($0, pin) } == true ? .certificateVerified : .failed)
                        }
                        try channel.pipeline.syncOperations.addHandler(handler)
                        try channel.pipeline.syncOperations.addHandler(HandshakeWaiter(promise: handshake))
                    }
                }
                .connect(host: host, port: port).get()
            defer { channel.close(promise: nil) }
            try await handshake.futureResult.get()
        } catch {
            handshake.fail(error)  // a promise never completed would be reported as leaked
            if let presented = seen.withLock({ $0.pin }), !ConstantTime.equals(presented, pin) {
                throw .pinMismatch(expected: RelayKeyPin.encode(pin), presented: RelayKeyPin.encode(presented))
            }
            throw .transport("TLS connection to \(host):\(port) failed: \(TransportFailure.reason(error))")
        }
        // Checked again here, not only in the callback: nothing but a matching key is ever returned.
        let (certificate, presented, count) = seen.withLock { ($0.certificate, $0.pin, $0.count) }
        guard let certificate, let presented else { throw .transport("the relay presented no certificate") }
        guard ConstantTime.equals(presented, pin) else {
            throw .pinMismatch(expected: RelayKeyPin.encode(pin), presented: RelayKeyPin.encode(presented))
        }
        return (certificate, count)
    }
}

/// Completes its promise when the TLS handshake is done, or fails it.
private final class HandshakeWaiter: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = ByteBuffer
    let promise: EventLoopPromise<Void>
    init(promise: EventLoopPromise<Void>) { self.promise = promise }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case TLSUserEvent.handshakeCompleted = event { promise.succeed(()) }  // later fails are no-ops
        context.fireUserInboundEventTriggered(event)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        promise.fail(error)
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        promise.fail(ChannelError.ioOnClosedChannel)
        context.fireChannelInactive()
    }
}
