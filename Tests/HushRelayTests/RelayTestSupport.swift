import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import HushCrypto
import HushProtocol
import HushRelay
import HushRelayAPI
import HushTesting
import Logging
import NIOCore

/// A test user: a seeded identity key and prekeys signed by it.
struct TestUser: Sendable {
    let key: Ed25519.PrivateKey
    let signedPrekey: SignedPrekey
    let lastResortKEM: SignedPrekey
    let random: DeterministicRandom

    init(seed: String) throws {
        random = DeterministicRandom(seed: seed)
        key = Ed25519.PrivateKey(using: random)
        signedPrekey = try SignedPrekey.sign(kind: .signedX25519, id: 1, publicKey: random.bytes(32), with: key)
        lastResortKEM = try SignedPrekey.sign(kind: .lastResortKEM, id: 2, publicKey: random.bytes(1184), with: key)
    }

    var identity: [UInt8] { key.publicKey.rawRepresentation }

    func oneTime(_ kind: PrekeyKind, ids: ClosedRange<UInt32>) throws -> [SignedPrekey] {
        try ids.map { try SignedPrekey.sign(kind: kind, id: $0, publicKey: random.bytes(kind.publicKeyLength), with: key) }
    }

    func registration(at timestamp: Int64, oneTime: [SignedPrekey] = []) -> RegisterRequest {
        RegisterRequest.signed(identity: key, signedPrekey: signedPrekey, lastResortKEMPrekey: lastResortKEM,
                               oneTimePrekeys: oneTime, timestamp: timestamp)
    }
}

enum JSON {
    static func body<T: Encodable>(_ value: T) throws -> ByteBuffer { ByteBuffer(bytes: try JSONEncoder().encode(value)) }
    static func decode<T: Decodable>(_ type: T.Type, _ buffer: ByteBuffer) throws -> T {
        try JSONDecoder().decode(type, from: Data(buffer.readableBytesView))
    }
    static func errorCode(_ response: TestResponse) -> String? {
        try? decode(RelayErrorBody.self, response.body).error.code
    }
}

/// A relay with a manual clock, for router tests: on the in-memory driver,
/// or on the driver a test runs against (`StorageDriver`).
struct TestRelay {
    let server: RelayServer
    let clock: ManualClock
    let blobs: TemporaryDirectory
    /// Keeps a SQLCipher file or PostgreSQL database open for the relay's life.
    let opened: OpenedDriver?

    init(configure: (inout RelayConfiguration) -> Void = { _ in }, storage: RelayStorage = RelayStorage(InMemoryRelayStorage())) throws {
        try self.init(configure: configure, storage: storage, opened: nil)
    }

    init(driver: StorageDriver, configure: (inout RelayConfiguration) -> Void = { _ in }) async throws {
        let opened = try await OpenedDriver(driver)
        try self.init(configure: configure, storage: opened.storage, opened: opened)
    }

    private init(configure: (inout RelayConfiguration) -> Void, storage: RelayStorage, opened: OpenedDriver?) throws {
        var configuration = RelayConfiguration()
        configuration.port = 0
        // Router tests deposit as strangers all the time: first-contact work is
        // off unless a test turns it on (FirstContactWorkTests does).
        configuration.rateLimits.firstContactWorkBits = 0
        configure(&configuration)
        clock = ManualClock()
        blobs = try TemporaryDirectory()
        self.opened = opened
        var logger = Logger(label: "test.relay")
        logger.logLevel = .warning
        let core = RelayCore(configuration: configuration, storage: storage, blobs: BlobStore(directory: blobs.path),
                             clock: clock, random: DeterministicRandom(seed: "relay-tests"), logger: logger)
        server = RelayServer(core: core)
    }

    var now: Int64 { clock.now() }

    /// The origin login signatures name here (the listen address before it is bound).
    var origin: RelayOrigin { server.core.acceptedOrigins[0] }

    func application() -> some ApplicationProtocol { server.makeApplication() }
}

extension TestClientProtocol {
    func json<T: Encodable>(_ method: HTTPRequest.Method, _ uri: String, _ value: T, token: String? = nil) async throws -> TestResponse {
        var headers: HTTPFields = [.contentType: "application/json"]
        if let token { headers[.authorization] = "Bearer \(token)" }
        return try await execute(uri: uri, method: method, headers: headers, body: JSON.body(value))
    }

    func get(_ uri: String, token: String? = nil) async throws -> TestResponse {
        var headers: HTTPFields = [:]
        if let token { headers[.authorization] = "Bearer \(token)" }
        return try await execute(uri: uri, method: .get, headers: headers)
    }

    /// Registers `user` and returns a bearer token for it.
    func registerAndAuthenticate(_ user: TestUser, relay: TestRelay, oneTime: [SignedPrekey] = []) async throws -> String {
        let registered = try await json(.post, RelayPaths.identities, user.registration(at: relay.now, oneTime: oneTime))
        guard registered.status == .created else { throw TestFailure("registration answered \(registered.status)") }
        return try await authenticate(user, origin: relay.origin)
    }

    func authenticate(_ user: TestUser, origin: RelayOrigin) async throws -> String {
        let challenge = try JSON.decode(ChallengeResponse.self,
                                        await json(.post, RelayPaths.challenge, ChallengeRequest(identityKey: Base64Bytes(user.identity))).body)
        let signature = AuthChallenge.sign(nonce: challenge.nonce.bytes, origin: origin, with: user.key)
        let response = try await json(.post, RelayPaths.token,
                                      TokenRequest(identityKey: Base64Bytes(user.identity), nonce: challenge.nonce,
                                                   signature: Base64Bytes(signature), origin: origin.description))
        guard response.status == .ok else { throw TestFailure("token answered \(response.status)") }
        return try JSON.decode(TokenResponse.self, response.body).token
    }

    func deposit(to user: TestUser, requestID: String, envelope: [UInt8], credential: [UInt8]? = nil) async throws -> TestResponse {
        try await json(.post, RelayPaths.mailboxMessages(user.identity),
                       DepositRequest(requestID: requestID, envelope: Base64Bytes(envelope), credential: credential.map(Base64Bytes.init)))
    }
}

/// `bytes` padded with zeros to the smallest envelope the relay accepts, so
/// tests can tell envelopes apart by a short prefix.
func sealedSized(_ bytes: [UInt8]) -> [UInt8] {
    bytes + [UInt8](repeating: 0, count: max(0, RelayLimits.minEnvelopeBytes - bytes.count))
}

struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
