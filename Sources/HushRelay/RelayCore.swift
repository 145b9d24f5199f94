import HushCrypto
import HushProtocol
import HushRelayAPI
import Hummingbird
import Logging

/// What every route shares: configuration, storage, blob files, the socket
/// hub, the clock, randomness, rate limiters and the logger.
public final class RelayCore: Sendable {
    public let configuration: RelayConfiguration
    public let storage: RelayStorage
    public let blobs: BlobStore
    public let hub: ConnectionHub
    public let clock: any TimeSource
    public let random: any RandomSource
    public let logger: Logger
    /// Counters and timings (`RelayMetrics`); counting nothing unless enabled.
    public let metrics: RelayMetrics
    let limits: Limiters
    let firstContactDifficulty: FirstContactDifficulty
    /// What blob uploads may take: per identity, per address, in total.
    let blobBudget: BlobBudget
    /// The origins login signatures may name.
    let origins: AcceptedOrigins

    /// The origins a login signature may name now (tests, the log line at start).
    public var acceptedOrigins: [RelayOrigin] { origins.all }

    struct Limiters: Sendable {
        let perAddress: RateLimiter
        let perIdentity: RateLimiter
        /// Keyed by source address and target mailbox.
        let firstContactPerAddress: RateLimiter
        /// Keyed by source address alone: `totalFactor` times the rule above.
        let firstContactPerAddressTotal: RateLimiter
        let authPerAddress: RateLimiter
        let bundlesPerIdentity: RateLimiter
        let blobUploadsPerIdentity: RateLimiter
    }

    public init(configuration: RelayConfiguration, storage: RelayStorage, blobs: BlobStore,
                clock: any TimeSource = SystemClock(), random: any RandomSource = SystemRandom(), logger: Logger,
                metrics: RelayMetrics = RelayMetrics()) {
        self.metrics = metrics
        self.configuration = configuration
        self.storage = storage
        self.blobs = blobs
        self.hub = ConnectionHub()
        self.clock = clock
        self.random = random
        self.logger = logger
        self.origins = AcceptedOrigins(configuration: configuration)
        let rules = configuration.rateLimits
        self.firstContactDifficulty = FirstContactDifficulty(baseBits: rules.firstContactWorkBits)
        self.blobBudget = BlobBudget(quota: configuration.blobQuota, totalBytes: configuration.blobTotalBytes,
                                     perAddress: rules.blobBytesPerAddress)
        self.limits = Limiters(
            perAddress: RateLimiter(rule: rules.perAddress),
            perIdentity: RateLimiter(rule: rules.perIdentity),
            firstContactPerAddress: RateLimiter(rule: rules.firstContactPerAddress),
            firstContactPerAddressTotal: RateLimiter(rule: .init(burst: rules.firstContactPerAddress.burst * Self.firstContactTotalFactor,
                                                                  perSecond: rules.firstContactPerAddress.perSecond * Self.firstContactTotalFactor)),
            authPerAddress: RateLimiter(rule: rules.authPerAddress),
            bundlesPerIdentity: RateLimiter(rule: rules.bundlesPerIdentity),
            blobUploadsPerIdentity: RateLimiter(rule: rules.blobUploadsPerIdentity)
        )
    }

    /// How many targets' worth of first contacts one source address may make
    /// at once and over time (the per-target rule times this).
    static let firstContactTotalFactor = 10.0

    var now: Int64 { clock.now() }

    /// The unexpired blobs stored for `uploader` and for everyone, for `BlobBudget`.
    func storedBlobs(uploader: [UInt8]) async throws -> BlobBudget.Stored {
        let now = self.now
        return BlobBudget.Stored(uploader: try await storage.blobs.blobUsage(uploader: uploader, now: now),
                                 total: try await storage.blobs.totalBlobUsage(now: now))
    }

    /// Throws 429 with the wait when `limiter` has no token for `key`.
    func limit(_ limiter: RateLimiter, _ key: String, cost: Int = 1) throws {
        if let wait = limiter.acquire(key, cost: cost, nowMilliseconds: now) { throw RelayError.rateLimited(retryAfterSeconds: wait) }
    }

    /// The identity in a path segment: 64 lower-case hex digits (as documented:
    /// one spelling per key) of a valid Ed25519 key.
    func identity(fromPath context: RelayRequestContext, name: String = "identity") throws -> [UInt8] {
        guard let segment = context.parameters.get(name), segment.utf8.count == 2 * IdentityKey.length,
              segment.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains($0) }),
              let bytes = try? Hex.decode(segment), (try? IdentityKey(rawRepresentation: bytes)) != nil else {
            // A directory's name is a blinded key, not an identity: say which the path holds.
            let what = name == "name" ? "directory name" : name
            throw RelayError.badRequest("the \(what) in the path must be 64 lower-case hex digits of an Ed25519 public key")
        }
        return bytes
    }

    /// The identity the bearer token belongs to; 401 when absent, unknown or
    /// expired. Also applies the per-identity rate limit.
    func authenticate(_ request: Request) async throws -> TokenGrant {
        guard let header = request.headers[.authorization], header.utf8.count <= 128, header.hasPrefix("Bearer ") else {
            throw RelayError.unauthorized
        }
        let token = String(header.dropFirst("Bearer ".count))
        guard let grant = try await storage.auth.tokenIdentity(hash: TokenIssuer.hash(token), now: now) else {
            throw RelayError.unauthorized
        }
        try limit(limits.perIdentity, Hex.encode(grant.identity))
        return grant
    }

    /// Like `authenticate`, and 403 unless the token's identity is `owner`.
    func authenticate(_ request: Request, owner: [UInt8]) async throws -> TokenGrant {
        let grant = try await authenticate(request)
        guard ConstantTime.equals(grant.identity, owner) else { throw RelayError.forbidden }
        return grant
    }
}

/// Bearer tokens: 32 random bytes in unpadded base64url; the relay stores
/// only the SHA-256 of the token text, so a stolen database yields no token.
enum TokenIssuer {
    static func make(using random: any RandomSource) -> String {
        Base64URL.encode(random.bytes(32))
    }

    static func hash(_ token: String) -> [UInt8] { SHA256.hash(Array(token.utf8)) }
}

enum Base64URL {
    static func encode(_ bytes: [UInt8]) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count * 4 + 2) / 3)
        var index = 0
        while index < bytes.count {
            let chunk = bytes[index..<min(index + 3, bytes.count)]
            var value: UInt32 = 0
            for (offset, byte) in chunk.enumerated() { value |= UInt32(byte) << (16 - 8 * UInt32(offset)) }
            for position in 0...chunk.count { out.append(alphabet[Int((value >> (18 - 6 * UInt32(position))) & 63)]) }
            index += 3
        }
        return String(decoding: out, as: UTF8.self)
    }
}
