import AsyncHTTPClient
import Foundation
import HushCrypto
import HushProtocol
import HushRelayAPI
import Logging
import NIOCore
import NIOSSL
import Synchronization

/// The relay's HTTP API, typed. One instance per relay and identity: after
/// `authenticate` it holds the bearer token (in memory only) and the
/// identity whose mailbox `sync`/`ack` address.
public final class RelayClient: Sendable {
    /// The relay URL without its `#pin=` fragment.
    public let baseURL: String
    /// The relay's key pin from `#pin=` (`RelayKeyPin`): then only that key is trusted.
    public let pin: [UInt8]?
    /// A URL that cannot be used (a bad pin fragment), reported on first use.
    let urlProblem: String?
    let http: HTTPClient
    let logger: Logger
    let timeout: TimeAmount
    /// Where registration timestamps come from (a `ManualClock` in tests).
    let clock: any TimeSource
    private let session = Mutex<Session?>(nil)

    struct Session {
        var identity: [UInt8]
        var token: String
        var expiresAt: Int64
    }

    /// - Parameter baseURL: e.g. `http://127.0.0.1:8080` (no trailing slash).
    public init(baseURL: String, httpClient: HTTPClient = RelayClient.failFastHTTPClient, timeout: TimeAmount = .seconds(30),
                logger: Logger = Logger(label: "hush.relay-client"), clock: any TimeSource = SystemClock()) {
        var url = baseURL, pin: [UInt8]?, problem: String?
        do { (url, pin) = try RelayKeyPin.split(baseURL) } catch { problem = error.description }
        self.baseURL = url.hasSuffix("/") ? String(url.dropLast()) : url
        self.pin = pin
        self.urlProblem = problem
        if problem == nil, let origin = try? RelayOrigin(url: self.baseURL), origin.scheme == "http", !origin.isLoopback {
            logger.warning("the relay URL is plain http:// to another machine: anyone on the way can read and change what is sent; use https://")
        }
        self.clock = clock
        self.http = httpClient
        self.timeout = timeout
        self.logger = logger
    }

    /// The default HTTP client: `HTTPClient.shared`'s settings, except that a
    /// refused or failed connection fails the request at once (connect timeout
    /// 5 s) instead of being retried in the pool until the request's deadline.
    /// With the shared client every call to a relay that is down took the full
    /// 30 s, so `hush send` hung 30 s per queued message during an outage; the
    /// outbox has its own backoff and retries later anyway. Never shut down:
    /// it lives as long as the process.
    public static let failFastHTTPClient: HTTPClient = {
        var configuration = HTTPClient.Configuration.singletonConfiguration
        configuration.connectionPool.retryConnectionEstablishment = false
        configuration.timeout.connect = .seconds(5)
        return HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
    }()

    /// The current token and its expiry (Unix ms), nil before `authenticate`.
    public var currentToken: (token: String, expiresAt: Int64)? { session.withLock { $0.map { ($0.token, $0.expiresAt) } } }

    /// The current token's expiry (Unix ms), nil before `authenticate`.
    public var tokenExpiresAt: Int64? { session.withLock { $0?.expiresAt } }

    /// Uses a token obtained elsewhere (e.g. restored after a restart).
    public func useToken(_ token: String, identity: [UInt8], expiresAt: Int64) {
        session.withLock { $0 = Session(identity: identity, token: token, expiresAt: expiresAt) }
    }

    /// The HTTP client for this relay, and the TLS configuration a pinned
    /// relay's connections use (nil: the system's trust store).
    func transport() async throws(RelayClientError) -> (http: HTTPClient, tls: TLSConfiguration?) {
        if let urlProblem { throw .invalidRelayURL(urlProblem) }
        guard let pin else { return (http, nil) }
        let origin = try self.origin
        let (client, tls) = try await PinnedRelayKey.client(host: origin.connectableHost, port: origin.port, pin: pin)
        return (client, tls)
    }

    /// Forgets the token (after a 401, before re-authenticating).
    public func forgetToken() { session.withLock { $0 = nil } }

    func currentSession() throws(RelayClientError) -> Session {
        guard let current = session.withLock({ $0 }) else { throw .notAuthenticated }
        return current
    }

    // MARK: Identity and prekeys

    public func health() async throws(RelayClientError) -> HealthResponse {
        try await call(.GET, RelayPaths.health, as: HealthResponse.self)
    }

    /// Publishes `identity` with its prekeys, signed with a proof of possession.
    @discardableResult
    public func register(identity: Ed25519.PrivateKey, signedPrekey: SignedPrekey, lastResortKEMPrekey: SignedPrekey,
                         oneTimePrekeys: [SignedPrekey], timestamp: Int64? = nil) async throws(RelayClientError) -> RegisterResponse {
        let request = RegisterRequest.signed(identity: identity, signedPrekey: signedPrekey, lastResortKEMPrekey: lastResortKEMPrekey,
                                             oneTimePrekeys: oneTimePrekeys, timestamp: timestamp ?? clock.now())
        return try await call(.POST, RelayPaths.identities, body: request, as: RegisterResponse.self)
    }

    /// Adds one-time prekeys (X25519 and/or KEM); returns how many remain of each.
    @discardableResult
    public func uploadPrekeys(_ prekeys: [SignedPrekey]) async throws(RelayClientError) -> PrekeyCountResponse {
        try await call(.POST, RelayPaths.prekeys, body: UploadPrekeysRequest(oneTimePrekeys: prekeys.map(SignedPrekeyDTO.init)),
                       authenticated: true, as: PrekeyCountResponse.self)
    }

    public func prekeyCount() async throws(RelayClientError) -> PrekeyCountResponse {
        try await call(.GET, RelayPaths.prekeyCount, authenticated: true, as: PrekeyCountResponse.self)
    }

    /// Fetches (and consumes) a bundle for `identity`, and verifies every
    /// signature in it against that identity key before returning it.
    public func fetchBundle(for identity: [UInt8]) async throws(RelayClientError) -> PrekeyBundle {
        // Not repeated on a closed connection: a fetch the relay answered consumed one-time prekeys.
        let dto = try await call(.GET, RelayPaths.bundle(identity), repeatable: false, as: PrekeyBundleDTO.self)
        do {
            let bundle = try dto.bundle()
            guard bundle.identityKey.rawRepresentation == identity else { throw ProtocolError.malformed(what: "bundle for another identity") }
            try bundle.verify()
            return bundle
        } catch {
            throw .invalidResponse("the bundle does not verify: \(error)")
        }
    }

    // MARK: Authentication

    /// The origin login signatures name: the relay this client was told to
    /// use, whatever answers there (`AuthChallenge`).
    public var origin: RelayOrigin {
        get throws(RelayClientError) {
            if let urlProblem { throw .invalidRelayURL(urlProblem) }
            do { return try RelayOrigin(url: baseURL) } catch { throw .invalidRelayURL(error.description) }
        }
    }

    /// Challenge → signature → token. The token is kept for later calls.
    /// The signature names `origin`, so a relay that passed this challenge on
    /// from another relay gets nothing usable there.
    ///
    /// A refused answer is answered once more with a new challenge: the relay
    /// refuses an expired challenge exactly as a forged signature (401
    /// `authentication_failed`), and a challenge expires whenever more than
    /// its lifetime (60 s) passes before the answer arrives: a laptop that
    /// slept in between, a process stopped or starved of CPU. Without the
    /// second round, one such pause would read as a final refusal and the
    /// outbox would give its messages up. A second refusal, for a challenge
    /// fetched just now, is final.
    @discardableResult
    public func authenticate(identity: Ed25519.PrivateKey) async throws(RelayClientError) -> TokenResponse {
        do {
            return try await authenticateOnce(identity: identity)
        } catch let .http(401, code, _, _) where code == RelayErrorCode.authenticationFailed.rawValue {
            return try await authenticateOnce(identity: identity)
        }
    }

    private func authenticateOnce(identity: Ed25519.PrivateKey) async throws(RelayClientError) -> TokenResponse {
        let origin = try self.origin
        let publicKey = identity.publicKey.rawRepresentation
        let challenge = try await call(.POST, RelayPaths.challenge, body: ChallengeRequest(identityKey: Base64Bytes(publicKey)), repeatable: true, as: ChallengeResponse.self)
        let signature = AuthChallenge.sign(nonce: challenge.nonce.bytes, origin: origin, pin: pin, with: identity)
        let token = try await call(.POST, RelayPaths.token,
                                   body: TokenRequest(identityKey: Base64Bytes(publicKey), nonce: challenge.nonce,
                                                      signature: Base64Bytes(signature), origin: origin.description),
                                   as: TokenResponse.self)
        useToken(token.token, identity: publicKey, expiresAt: token.expiresAt)
        return token
    }

    // MARK: Mailboxes

    /// Deposits a sealed envelope for `recipient`. Safe to repeat with the
    /// same `requestID`: the relay answers with the first result.
    /// Sent in the binary form (raw envelope body, request id and credential
    /// in headers: no base64, no JSON to build or parse on either side).
    /// Without a credential the deposit is a first contact: when the relay
    /// answers 428 `work_required`, the proof of work it asks for is computed
    /// (`FirstContactWork`, on average 2^bits hashes) and the deposit sent
    /// again, up to three times (the difficulty may rise meanwhile).
    public func deposit(recipient: [UInt8], envelope: [UInt8], requestID: String, credential: [UInt8]?) async throws(RelayClientError) -> DepositResponse {
        var work: [UInt8]?
        for _ in 0..<3 {
            var headers = [(BinaryDeposit.requestIDHeader, requestID),
                           (EnvelopeDigest.header, Data(EnvelopeDigest.of(envelope)).base64EncodedString())]
            if let credential { headers.append((BinaryDeposit.credentialHeader, Data(credential).base64EncodedString())) }
            if let work { headers.append((FirstContactWork.header, Data(work).base64EncodedString())) }
            let raw = try await send(.POST, RelayPaths.mailboxMessages(recipient), body: ByteBuffer(bytes: envelope),
                                     contentType: BinaryDeposit.contentType, headers: headers, repeatable: true)
            guard raw.status == 428, credential == nil, let bits = raw.workBits, bits <= Self.maxWorkBits else {
                return try decode(DepositResponse.self, from: raw)
            }
            work = FirstContactWork.solve(mailbox: recipient, requestID: requestID, envelope: envelope, bits: bits)
        }
        throw .http(status: 428, code: RelayErrorCode.workRequired.rawValue,
                    message: "the relay kept raising the first-contact work; retry later", retryAfterSeconds: nil)
    }

    /// The most work a client does for one first contact (2^28 hashes: minutes);
    /// a relay asking for more is treated as refusing for now.
    static let maxWorkBits = 28

    /// Envelopes after `after` in the authenticated identity's mailbox (or `mailbox`, which the relay refuses unless it is ours).
    public func sync(after: UInt64 = 0, limit: Int = RelayLimits.defaultSyncLimit, mailbox: [UInt8]? = nil) async throws(RelayClientError) -> SyncResponse {
        let owner: [UInt8]
        if let mailbox { owner = mailbox } else { owner = try currentSession().identity }
        // A full page of the largest envelopes, base64 in JSON, exceeds the
        // default 4 MiB response cap: size the cap by the page instead.
        let cap = max(limit, 1) * (RelayLimits.maxJSONBodyBytes + 256) + 4096
        let raw = try await send(.GET, RelayPaths.mailboxMessages(owner) + "?after=\(after)&limit=\(limit)",
                                 authenticated: true, maxResponseBytes: cap)
        return try decode(SyncResponse.self, from: raw)
    }

    /// Deletes delivered envelopes; returns how many were still stored.
    @discardableResult
    public func ack(ids: [UInt64]) async throws(RelayClientError) -> Int {
        let owner = try currentSession().identity
        return try await call(.POST, RelayPaths.mailboxAck(owner), body: AckRequest(messageIDs: ids), authenticated: true, repeatable: true, as: AckResponse.self).deleted
    }

    /// Registers (and revokes) delivery credential tokens; the relay gets only their SHA-256.
    @discardableResult
    public func updateCredentials(add tokens: [[UInt8]], remove revoked: [[UInt8]] = []) async throws(RelayClientError) -> Int {
        let owner = try currentSession().identity
        let body = CredentialsRequest(add: tokens.map { Base64Bytes(DeliveryCredential.hash($0)) },
                                      remove: revoked.map { Base64Bytes(DeliveryCredential.hash($0)) })
        return try await call(.POST, RelayPaths.mailboxCredentials(owner), body: body, authenticated: true, as: CredentialsResponse.self).count
    }

    // MARK: Blobs

    public func uploadBlob(_ bytes: [UInt8]) async throws(RelayClientError) -> BlobUploadResponse {
        let raw = try await send(.POST, RelayPaths.blobs, body: ByteBuffer(bytes: bytes), contentType: "application/octet-stream", authenticated: true)
        return try decode(BlobUploadResponse.self, from: raw)
    }

    public func downloadBlob(id: String, maxBytes: Int = RelayLimits.defaultMaxBlobBytes) async throws(RelayClientError) -> [UInt8] {
        let raw = try await send(.GET, RelayPaths.blob(id), authenticated: false, maxResponseBytes: maxBytes)
        try raw.throwIfError()
        return raw.body
    }

    // MARK: Socket

    /// Opens `/v1/socket` with the current token.
    public func connectSocket() async throws(RelayClientError) -> RelaySocket {
        let token = try currentSession().token
        let url = baseURL.replacingOccurrences(of: "http://", with: "ws://").replacingOccurrences(of: "https://", with: "wss://") + RelayPaths.socket
        let tls = try await transport().tls
        let host = try origin.host
        let isAddress = host.hasPrefix("[") || host.allSatisfy { $0.isNumber || $0 == "." }
        return try await RelaySocket.connect(url: url, token: token, tlsConfiguration: tls,
                                             sniHostname: tls != nil && isAddress ? "pinned-relay.invalid" : nil, logger: logger)
    }
}
