import HushRelayAPI

/// How one relay runs. Defaults are the production settings; tests and the
/// load generator narrow or widen them.
public struct RelayConfiguration: Sendable {
    public var host: String = "127.0.0.1"
    public var port: Int = 8080
    /// Further origins clients reach this relay by (`https://relay.example.org`
    /// through a reverse proxy or a DNS name): login signatures must name one
    /// of these or the listen address, `http://HOST:PORT` with the bound port
    /// (and the other loopback spellings when HOST is loopback).
    public var origins: [RelayOrigin] = []
    /// TLS served by the relay itself (`RelayTLS`); nil: plain HTTP.
    public var tls: RelayTLS?
    /// SHA-256 of the relay's TLS public key (SPKI) when it serves TLS itself:
    /// login signatures made with a pinned URL must name it.
    public var keyPin: [UInt8]? { tls?.pin }
    /// Where the key file, the database and blobs live.
    public var dataDirectory: String = "relay-data"
    /// Where the database key lives; nil: `relay.key` inside the data directory.
    public var keyFile: String?
    /// How long an undelivered envelope (and a blob) is kept.
    public var retentionSeconds: Int64 = 30 * 24 * 3600
    /// How often expired items are swept.
    public var sweepIntervalSeconds: Int64 = 60
    public var tokenLifetimeSeconds: Int64 = RelayLimits.tokenLifetimeSeconds
    public var challengeLifetimeSeconds: Int64 = RelayLimits.challengeLifetimeSeconds
    public var mailboxQuotaCount: Int = RelayLimits.mailboxQuotaCount
    public var mailboxQuotaBytes: Int = RelayLimits.mailboxQuotaBytes
    public var maxBlobBytes: Int = RelayLimits.defaultMaxBlobBytes
    /// Blob storage one identity may hold at once (unexpired blobs).
    public var blobQuota = BlobQuota(maxBytes: 256 << 20, maxCount: 1_000)
    /// Blob storage all identities together may hold (stored blobs, open
    /// uploads' declared lengths, one-shot uploads being received): the disk's
    /// share for attachments. The default is above what one address can
    /// upload within the retention period at the default per-address rate
    /// (1 GiB + 1 GiB a day × 30 days), so one address alone cannot fill it.
    public var blobTotalBytes = 32 << 30
    public var rateLimits = RateLimits()
    /// Seconds between WebSocket pings; a peer that misses a pong is closed.
    public var pingIntervalSeconds: Int64 = 30
    /// How long a socket the relay closes may take to answer its close frame
    /// before the connection is dropped.
    public var socketCloseTimeoutSeconds: Int64 = 10
    /// Where `GET /metrics` (Prometheus) listens, when the relay has Prometheus
    /// metrics (`RelayMetrics.prometheus()`); nil: no endpoint.
    public var metricsAddress: (host: String, port: Int)?
    /// Deadlines and caps for connections.
    public var connectionLimits = ConnectionLimits()

    /// Token buckets: `burst` requests at once, refilled at `perSecond`.
    public struct RateLimits: Sendable {
        /// Every request, per client IP address.
        public var perAddress = RateLimiter.Rule(burst: 400, perSecond: 200)
        /// Authenticated requests, per identity.
        public var perIdentity = RateLimiter.Rule(burst: 200, perSecond: 50)
        /// Credential-less deposits, per client IP and target mailbox: 10 at once,
        /// then one per minute (and ten times that per client IP, all targets).
        public var firstContactPerAddress = RateLimiter.Rule(burst: 10, perSecond: 1.0 / 60)
        /// Bundle fetches per target identity that consume one-time prekeys: the
        /// route needs no login, so without this one client could drain anyone's
        /// prekeys in seconds. Beyond it bundles are served without one-time
        /// prekeys (never refused, so nobody can lock newcomers out).
        public var bundlesPerIdentity = RateLimiter.Rule(burst: 20, perSecond: 1.0 / 30)
        /// Zero bits of proof of work a first-contact deposit needs in the quiet
        /// case (`FirstContactDifficulty` raises it under a flood). 0 disables it.
        public var firstContactWorkBits = 16
        /// Blob uploads per identity: 20 at once, then one every 3 s.
        public var blobUploadsPerIdentity = RateLimiter.Rule(burst: 20, perSecond: 1.0 / 3)
        /// Blob bytes per client address, however many identities it uses:
        /// 1 GiB at once, refilled at 1 GiB a day. An upload is charged its
        /// declared length when it starts (a one-shot upload gets back what
        /// it did not use).
        public var blobBytesPerAddress = RateLimiter.Rule(burst: Double(1 << 30), perSecond: Double(1 << 30) / 86_400)
        /// Registrations and challenges, per client IP.
        public var authPerAddress = RateLimiter.Rule(burst: 30, perSecond: 1)
        public init() {}

        /// Limits high enough never to trigger: for load generation on loopback only.
        public static var unlimited: RateLimits {
            var limits = RateLimits()
            let open = RateLimiter.Rule(burst: 10_000_000, perSecond: 10_000_000)
            limits.perAddress = open
            limits.perIdentity = open
            limits.firstContactWorkBits = 0
            limits.firstContactPerAddress = open
            limits.bundlesPerIdentity = open
            limits.blobUploadsPerIdentity = open
            limits.blobBytesPerAddress = RateLimiter.Rule(burst: 1e15, perSecond: 1e15)
            limits.authPerAddress = open
            return limits
        }
    }

    public init() {}
}
