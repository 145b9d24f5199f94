import HushRelayAPI
import Logging

extension RelaySetting {
    /// Every setting, in the order `--print-defaults` writes them. Keys with a
    /// dot belong to the section before it (`connections.idle-timeout`).
    public static let all: [RelaySetting] = [
        text("host", "Address to listen on (0.0.0.0 or :: for every address: then list origins).") { $0.configuration.host } set: { $0.configuration.host = $1 },
        int("port", "Port to listen on (0 picks a free one).", 0...65_535) { $0.configuration.port } set: { $0.configuration.port = $1 },
        RelaySetting(key: "origins", help: "Further URLs clients reach this relay by (a DNS name, a TLS proxy): login signatures name the URL the client uses.",
                     kind: .origins, get: { .strings($0.configuration.origins.map(\.description)) },
                     set: { if case let .strings(urls) = $1 { $0.configuration.origins = urls.compactMap { try? RelayOrigin(url: $0) } } }),
        text("data", "Data directory: database, blobs, and the key file unless key-file is set.") { $0.configuration.dataDirectory } set: { $0.configuration.dataDirectory = $1 },
        text("key-file", "The database key file, kept outside the data directory (empty: relay.key in the data directory).", allowsEmpty: true) { $0.keyFile } set: { $0.keyFile = $1 },
        text("database", "postgres://USER@HOST:PORT/DB to use PostgreSQL instead of the embedded database (empty: embedded); the password goes in $PGPASSWORD.",
             allowsEmpty: true, check: { $0.hasPrefix("postgres://") || $0.hasPrefix("postgresql://") ? nil : "must start with postgres://" }) { $0.database } set: { $0.database = $1 },
        int("retention-days", "Days an undelivered envelope or blob is kept.", 1...3_650) { $0.retentionDays } set: { $0.retentionDays = $1 },
        int("sweep-interval", "Seconds between sweeps that delete expired envelopes, blobs, challenges and tokens.", 1...86_400) { Int($0.configuration.sweepIntervalSeconds) } set: { $0.configuration.sweepIntervalSeconds = Int64($1) },
        text("log-level", "trace, debug, info, notice, warning, error or critical.",
             check: { Logger.Level(rawValue: $0) == nil ? "must be one of trace, debug, info, notice, warning, error, critical" : nil }) { $0.logLevel } set: { $0.logLevel = $1 },

        int("auth.token-lifetime", "Seconds a login token stays valid.", 60...86_400) { Int($0.configuration.tokenLifetimeSeconds) } set: { $0.configuration.tokenLifetimeSeconds = Int64($1) },
        int("auth.challenge-lifetime", "Seconds a login challenge may be answered.", 5...3_600) { Int($0.configuration.challengeLifetimeSeconds) } set: { $0.configuration.challengeLifetimeSeconds = Int64($1) },

        int("connections.request-head-timeout", "Seconds a new connection has to send its first request head.", 1...3_600) { Int($0.configuration.connectionLimits.requestHeadTimeoutSeconds) } set: { $0.configuration.connectionLimits.requestHeadTimeoutSeconds = Int64($1) },
        int("connections.idle-timeout", "Seconds a connection may stay silent between requests or body reads (WebSockets exempt).", 1...3_600) { Int($0.configuration.connectionLimits.idleTimeoutSeconds) } set: { $0.configuration.connectionLimits.idleTimeoutSeconds = Int64($1) },
        int("connections.max-per-address", "Open connections one client address may hold.", 1...1_000_000) { $0.configuration.connectionLimits.maxConnectionsPerAddress } set: { $0.configuration.connectionLimits.maxConnectionsPerAddress = $1 },
        int("connections.max", "Open connections in all (keep below `ulimit -n`).", 1...1_000_000) { $0.configuration.connectionLimits.maxConnections } set: { $0.configuration.connectionLimits.maxConnections = $1 },
        int("connections.ping-interval", "Seconds between WebSocket pings; a peer that misses a pong is closed.", 1...3_600) { Int($0.configuration.pingIntervalSeconds) } set: { $0.configuration.pingIntervalSeconds = Int64($1) },

        text("tls.certificate", "PEM certificate chain for serving https:// (with tls.key); empty: plain HTTP or tls.self-signed.", allowsEmpty: true) { $0.tlsCertificate } set: { $0.tlsCertificate = $1 },
        text("tls.key", "PEM private key for tls.certificate (keep it 0600).", allowsEmpty: true) { $0.tlsKey } set: { $0.tlsKey = $1 },
        RelaySetting(key: "tls.self-signed", help: "Serve https:// with a key and certificate made in the data directory on first start; clients pin its key (the relay prints the pin).",
                     kind: .bool, get: { .string($0.tlsSelfSigned ? "true" : "false") }, set: { if case let .string(text) = $1 { $0.tlsSelfSigned = text == "true" } }),
        text("tls.min-version", "Oldest TLS version served: 1.2 (1.2 and 1.3, AEAD cipher suites only) or 1.3 (1.3 only). TLS 1.0 and 1.1 are never served.",
             check: { RelayTLS.MinimumVersion(rawValue: $0) == nil ? "must be 1.2 or 1.3" : nil }) { $0.tlsMinimumVersion } set: { $0.tlsMinimumVersion = $1 },

        text("metrics.listen", "HOST:PORT where GET /metrics serves Prometheus metrics (empty: no metrics). Keep it off the public address.",
             allowsEmpty: true, check: { RelaySettings.hostAndPort($0) == nil ? "must be HOST:PORT, e.g. 127.0.0.1:9090" : nil }) { $0.metricsListen } set: { $0.metricsListen = $1 },

        int("quotas.mailbox-count", "Envelopes one mailbox may hold before deposits get 413.", 1...10_000_000) { $0.configuration.mailboxQuotaCount } set: { $0.configuration.mailboxQuotaCount = $1 },
        int("quotas.mailbox-bytes", "Bytes one mailbox may hold before deposits get 413.", 1_024...(1 << 40)) { $0.configuration.mailboxQuotaBytes } set: { $0.configuration.mailboxQuotaBytes = $1 },
        int("quotas.blob-mib", "MiB of unexpired blobs one identity may store.", 1...1_048_576) { $0.configuration.blobQuota.maxBytes >> 20 } set: { $0.configuration.blobQuota.maxBytes = $1 << 20 },
        int("quotas.max-blob-bytes", "Bytes one blob may have (at most \(RelayLimits.maxBlobBytes), room for a 4 GiB file).", 1_024...RelayLimits.maxBlobBytes) { $0.configuration.maxBlobBytes } set: { $0.configuration.maxBlobBytes = $1 },
        int("quotas.blob-count", "Unexpired blobs one identity may store.", 1...10_000_000) { $0.configuration.blobQuota.maxCount } set: { $0.configuration.blobQuota.maxCount = $1 },
        int("quotas.blob-total-mib", "MiB of blobs all identities together may hold (stored, plus open and running uploads); keep it below the disk's free space.",
            1...(1 << 30)) { $0.configuration.blobTotalBytes >> 20 } set: { $0.configuration.blobTotalBytes = $1 << 20 },

        int("rate-limits.first-contact-work-bits", "Zero bits of proof of work a first-contact deposit needs when its mailbox is quiet (0 turns it off).", 0...28) { $0.configuration.rateLimits.firstContactWorkBits } set: { $0.configuration.rateLimits.firstContactWorkBits = $1 },
    ] + rule("per-address", "every request, per client address", \.perAddress)
      + rule("per-identity", "authenticated requests, per identity", \.perIdentity)
      + rule("first-contact-per-address", "deposits without a delivery credential, per client address and target mailbox (ten times this per address over all targets)", \.firstContactPerAddress)
      + rule("bundles-per-identity", "bundle fetches that hand out one-time prekeys, per target identity (beyond: bundles without them)", \.bundlesPerIdentity)
      + rule("blob-uploads-per-identity", "blob uploads, per identity", \.blobUploadsPerIdentity)
      + rule("blob-bytes-per-address", "blob bytes uploaded, per client address whatever the identity", \.blobBytesPerAddress, unit: "bytes")
      + rule("auth-per-address", "registrations and logins, per client address", \.authPerAddress)

    public static let named: [String: RelaySetting] = Dictionary(uniqueKeysWithValues: all.map { ($0.key, $0) })

    /// The sections of the file (`connections`, …), which are mappings, not settings.
    static let sections: Set<String> = Set(all.compactMap { $0.key.split(separator: ".").count == 2 ? String($0.key.split(separator: ".")[0]) : nil })

    private static func int(_ key: String, _ help: String, _ range: ClosedRange<Int>,
                            get: @escaping @Sendable (RelaySettings) -> Int, set: @escaping @Sendable (inout RelaySettings, Int) -> Void) -> RelaySetting {
        RelaySetting(key: key, help: help, kind: .int(range), get: { .int(get($0)) },
                     set: { if case let .int(value) = $1 { set(&$0, value) } })
    }

    private static func text(_ key: String, _ help: String, allowsEmpty: Bool = false, check: @escaping @Sendable (String) -> String? = { _ in nil },
                             get: @escaping @Sendable (RelaySettings) -> String, set: @escaping @Sendable (inout RelaySettings, String) -> Void) -> RelaySetting {
        RelaySetting(key: key, help: help, kind: .string(allowsEmpty: allowsEmpty, check: check), get: { .string(get($0)) },
                     set: { if case let .string(value) = $1 { set(&$0, value) } })
    }

    /// A token bucket: `burst` requests at once, refilled at `per-second`.
    /// `unit`: what a token is (a request, or a byte of a blob upload).
    private static func rule(_ name: String, _ what: String,
                             _ path: any WritableKeyPath<RelayConfiguration.RateLimits, RateLimiter.Rule> & Sendable,
                             unit: String = "requests") -> [RelaySetting] {
        [
            RelaySetting(key: "rate-limits.\(name)-burst", help: "Token bucket for \(what): \(unit) at once.", kind: .double(1...1e15),
                         get: { .double($0.configuration.rateLimits[keyPath: path].burst) },
                         set: { if case let .double(value) = $1 { $0.configuration.rateLimits[keyPath: path].burst = value } }),
            RelaySetting(key: "rate-limits.\(name)-per-second", help: "… refilled at this many per second (0.0166 is one a minute).", kind: .double(1e-6...1e9),
                         get: { .double($0.configuration.rateLimits[keyPath: path].perSecond) },
                         set: { if case let .double(value) = $1 { $0.configuration.rateLimits[keyPath: path].perSecond = value } }),
        ]
    }
}
