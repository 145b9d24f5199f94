// swift-tools-version: 6.1
//
// Hush: an end-to-end encrypted messaging core.
// Dependencies point down only:
//   hush (CLI) -> Client / Relay (+ RelayPostgres) / Vectors -> Messenger / RelayClient -> Store / Keystore -> Protocol -> Crypto -> C
// Only HushCrypto imports libsodium (and HushBench, for its raw baseline) and swift-crypto;
// only HushDatabase imports SQLCipher; only HushRelayPostgres imports PostgresNIO;
// the relay never imports the client's keystore or store.
import PackageDescription

let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
]

let package = Package(
    name: "Hush",
    // The core (HushKit and the modules under it) builds for Apple platforms as
    // well as Linux: 15 / 18 / 2 are also where Synchronization's Mutex starts.
    platforms: [.macOS(.v15), .iOS(.v18), .macCatalyst(.v18), .visionOS(.v2)],
    products: [
        .executable(name: "hush", targets: ["hush"]),
        // The messaging core as a library that apps embed (Sources/HushKit, Examples/).
        .library(name: "HushKit", targets: ["HushKit"]),
        .library(name: "HushCrypto", targets: ["HushCrypto"]),
        // For the libFuzzer driver in Fuzz/ (a package of its own, built with
        // the fuzzer and address sanitizers by `make fuzz`).
        .library(name: "HushFuzzTargets", targets: ["HushFuzzTargets"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", exact: "1.8.2"),
        // ML-KEM-768 only; libsodium provides every other primitive.
        .package(url: "https://github.com/apple/swift-crypto", exact: "4.5.2"),
        .package(url: "https://github.com/apple/swift-log", exact: "1.16.2"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", exact: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket", exact: "2.8.1"),
        .package(url: "https://github.com/swift-server/async-http-client", exact: "1.37.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", exact: "2.13.0"),
        .package(url: "https://github.com/apple/swift-nio", exact: "2.101.3"),
        .package(url: "https://github.com/apple/swift-http-types", exact: "1.8.0"),
        // The relay's PostgreSQL driver (several relay instances on one database).
        .package(url: "https://github.com/vapor/postgres-nio", exact: "1.33.2"),
        // The relay's configuration file (YAML: comments, and errors with line numbers).
        // Small: libyaml in C plus a Swift layer, no dependencies of its own.
        .package(url: "https://github.com/jpsim/Yams", exact: "6.2.2"),
        // The relay's opt-in metrics endpoint. swift-metrics is already built for
        // Hummingbird; swift-prometheus is one small target on top of it.
        .package(url: "https://github.com/apple/swift-metrics", exact: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", exact: "2.4.1"),
        // The relay's own TLS and its self-signed certificate; all three are
        // already built for async-http-client.
        .package(url: "https://github.com/apple/swift-nio-ssl", exact: "2.37.6"),
        .package(url: "https://github.com/apple/swift-certificates", exact: "1.21.1"),
        .package(url: "https://github.com/apple/swift-asn1", exact: "1.7.4"),
    ],
    targets: [
        // MARK: C libraries (Debian packages)

        // libsodium (libsodium-dev). Only HushCrypto may import it.
        .systemLibrary(
            name: "CSodium",
            pkgConfig: "libsodium",
            providers: [.apt(["libsodium-dev"])]
        ),
        // SQLCipher (libsqlcipher-dev). Never link plain `sqlite3` anywhere in
        // this package: it exports the same symbols as SQLCipher, and whichever
        // library loads first silently serves every call, so a "keyed" database
        // would land on disk in plaintext.
        .systemLibrary(
            name: "CSQLCipher",
            pkgConfig: "sqlcipher",
            providers: [.apt(["libsqlcipher-dev"])]
        ),
        // libqrencode (libqrencode-dev), for scannable safety numbers.
        .systemLibrary(
            name: "CQRencode",
            pkgConfig: "libqrencode",
            providers: [.apt(["libqrencode-dev"])]
        ),

        // MARK: Core

        // Every primitive: libsodium, and swift-crypto (BoringSSL) for ML-KEM-768,
        // the incremental SHA-256 of blobs and X25519 with short-lived keys (see
        // SECURITY.md; no other module imports swift-crypto).
        .target(
            name: "HushCrypto",
            dependencies: [
                "CSodium",
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "HushProtocol",
            dependencies: ["HushCrypto"],
            swiftSettings: swiftSettings
        ),
        // The SQLCipher layer shared by the client store and the relay: the only
        // module that imports CSQLCipher.
        .target(
            name: "HushDatabase",
            dependencies: ["CSQLCipher", "HushCrypto"],
            swiftSettings: swiftSettings
        ),
        // The passphrase-protected keystore and the data directory it lives in.
        .target(
            name: "HushKeystore",
            dependencies: ["HushCrypto"],
            swiftSettings: swiftSettings
        ),
        // The encrypted local message store: schema, migrations, repositories.
        .target(
            name: "HushStore",
            dependencies: ["HushDatabase", "HushCrypto"],
            swiftSettings: swiftSettings
        ),

        // MARK: Client pipeline and relay

        // The send/receive pipeline: outbox, backoff, receipts. The CLI only drives it.
        .target(
            name: "HushMessenger",
            dependencies: ["HushCrypto", "HushProtocol", "HushDatabase", "HushStore", "HushRelayAPI"],
            swiftSettings: swiftSettings
        ),
        // Wire types shared by the relay and its client: DTOs, signed byte
        // strings, limits. No NIO, so the messenger can depend on it cheaply.
        .target(
            name: "HushRelayAPI",
            dependencies: ["HushProtocol", "HushCrypto"],
            swiftSettings: swiftSettings
        ),
        // The relay server. It never imports the client keystore or store.
        .target(
            name: "HushRelay",
            dependencies: [
                "HushRelayAPI", "HushProtocol", "HushCrypto", "HushDatabase",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                // The relay's own WebSocket handler (RelaySocketHandler) on NIO's frames.
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "Crypto", package: "swift-crypto"),
                // The configuration file of `hush relay serve` (RelaySettingsFile).
                .product(name: "Yams", package: "Yams"),
            ],
            swiftSettings: swiftSettings
        ),
        // The relay's stores on PostgreSQL, for several relay instances behind a
        // load balancer: the only module that imports PostgresNIO.
        .target(
            name: "HushRelayPostgres",
            dependencies: [
                "HushRelay", "HushRelayAPI", "HushProtocol", "HushCrypto",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        // HTTP + WebSocket client of the relay: the messenger's transport, also
        // used by tests and the load generator.
        .target(
            name: "HushRelayClient",
            dependencies: [
                "HushRelayAPI", "HushProtocol", "HushCrypto", "HushMessenger",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "HummingbirdWSClient", package: "hummingbird-websocket"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOTLS", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        // Reusable audit helpers (the canary scanner) for `hush audit relay` and `hush audit local`.
        .target(
            name: "HushAudit",
            dependencies: [],
            swiftSettings: swiftSettings
        ),
        // Terminal presentation: QR codes, colour (NO_COLOR), the chat screen.
        .target(
            name: "HushTerminal",
            dependencies: ["CQRencode"],
            swiftSettings: swiftSettings
        ),
        // Every parser of bytes someone else chose, one entry per fuzz target;
        // the tests replay the committed corpora through it.
        .target(
            name: "HushFuzzTargets",
            dependencies: ["HushCrypto", "HushProtocol", "HushKeystore", "HushRelayAPI", "HushVectors"],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "HushVectors",
            dependencies: ["HushCrypto", "HushProtocol"],
            swiftSettings: swiftSettings
        ),

        // Other programs started with posix_spawn, never Foundation's Process
        // (whose Process.run can crash on Linux: see Subprocess.swift): hooks,
        // the demo's children, and every child a test or benchmark starts.
        .target(
            name: "HushSubprocess",
            swiftSettings: swiftSettings
        ),

        // Test doubles and helpers shared by the test targets and the benchmark
        // (deterministic randomness, temporary directories, dump inspection).
        // No production target depends on it.
        .target(
            name: "HushTesting",
            dependencies: ["HushCrypto", "HushSubprocess"],
            swiftSettings: swiftSettings
        ),

        // The messaging core as apps embed it: an account (lobby) and its rooms,
        // typed ids, one error type, live events. Its public API is all an app
        // (and, in time, the CLI) needs; see Sources/HushKit/HushKit.docc.
        .target(
            name: "HushKit",
            dependencies: [
                "HushCrypto", "HushProtocol", "HushDatabase", "HushKeystore", "HushStore", "HushMessenger", "HushRelayClient", "HushRelayAPI",
            ],
            swiftSettings: swiftSettings
        ),

        // The daemon's local API: JSON-RPC 2.0 over a Unix socket, answered
        // only for the daemon's own user. Knows nothing of accounts: `hush
        // daemon` gives it the methods.
        .target(
            name: "HushDaemon",
            dependencies: [
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),

        // MARK: Executables

        .executableTarget(
            name: "hush",
            dependencies: [
                "HushKit", "HushCrypto", "HushDaemon", "HushTerminal", "HushAudit", "HushRelay", "HushRelayAPI", "HushRelayPostgres",
                "HushVectors", "HushSubprocess",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        // An app on HushKit's public API alone: answers every message (run in `make test`).
        .executableTarget(
            name: "EchoBot",
            dependencies: ["HushKit"],
            path: "Examples/EchoBot",
            swiftSettings: swiftSettings
        ),
        // Writes Vectors/protocol/*.json from fixed seeds (`swift run HushVectorGenerator Vectors/protocol`).
        .executableTarget(
            name: "HushVectorGenerator",
            dependencies: ["HushCrypto", "HushProtocol", "HushVectors", "HushKit"],
            swiftSettings: swiftSettings
        ),
        // Test helper: writes in a loop until killed (crash-consistency test).
        .executableTarget(
            name: "HushCrashWriter",
            dependencies: ["HushStore", "HushCrypto"],
            swiftSettings: swiftSettings
        ),
        // CSodium for its raw-libsodium baseline (RawSodiumBaseline), the one
        // import of libsodium outside HushCrypto; HushTesting for seeded inputs.
        .executableTarget(
            name: "HushBench",
            dependencies: [
                "CSodium", "HushTesting", "HushSubprocess", "HushCrypto", "HushProtocol", "HushDatabase", "HushStore", "HushKeystore", "HushMessenger",
                "HushRelay", "HushRelayAPI", "HushRelayClient", "HushRelayPostgres", "PostgresTestCluster", "HushDaemon", "HushKit",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            path: "Benchmarks/HushBench",
            swiftSettings: swiftSettings
        ),

        // MARK: Tests

        .testTarget(
            name: "HushSubprocessTests",
            dependencies: ["HushSubprocess"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "HushCryptoTests",
            dependencies: ["HushCrypto", "HushTesting"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "HushProtocolTests",
            dependencies: ["HushProtocol", "HushCrypto", "HushVectors", "HushTesting"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "HushDatabaseTests",
            dependencies: ["HushDatabase", "HushCrypto", "HushTesting"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "HushKeystoreTests",
            dependencies: ["HushKeystore", "HushCrypto", "HushTesting"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "HushStoreTests",
            dependencies: ["HushStore", "HushDatabase", "HushKeystore", "HushCrypto", "HushCrashWriter", "HushTesting", "HushSubprocess"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "HushMessengerTests",
            dependencies: ["HushMessenger", "HushStore", "HushProtocol", "HushRelayAPI", "HushCrypto", "HushTesting"],
            swiftSettings: swiftSettings
        ),
        // A throwaway PostgreSQL cluster for the relay's PostgreSQL tests.
        .target(
            name: "PostgresTestCluster",
            dependencies: [
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Tests/Support/PostgresTestCluster",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "HushRelayTests",
            dependencies: [
                "HushRelay", "HushRelayPostgres", "PostgresTestCluster", "HushTesting", "HushSubprocess", "HushRelayAPI", "HushRelayClient", "HushMessenger", "HushAudit", "HushProtocol", "HushCrypto",
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "HummingbirdWSClient", package: "hummingbird-websocket"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                // Scraping the metrics endpoint of a relay process.
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                // A throwaway CA and a certificate it issues, for a relay with a CA-issued certificate.
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: swiftSettings
        ),
        // HushKit exactly as an outside app uses it: `import HushKit` only (no
        // @testable, no package access), against a relay process ("hush" is a
        // dependency so that it is built first).
        .testTarget(
            name: "HushKitTests",
            // HushSubprocess starts the relay child, as HushKit's own API has nothing to do with that;
            // HushTesting finds the built `hush` it runs.
            dependencies: ["HushKit", "hush", "HushSubprocess", "HushTesting"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "HushTerminalTests",
            dependencies: ["HushTerminal"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "HushFuzzTargetsTests",
            dependencies: ["HushFuzzTargets"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "HushVectorsTests",
            dependencies: ["HushVectors", "HushCrypto", "HushTesting", "HushSubprocess"],
            swiftSettings: swiftSettings
        ),
        // Runs the real `hush` binary as separate processes; the help golden
        // tests walk its ArgumentParser commands in-process.
        .testTarget(
            name: "HushCLITests",
            dependencies: ["hush", "HushKit", "HushCrypto", "HushTesting",
                           .product(name: "ArgumentParser", package: "swift-argument-parser")],
            // The help goldens, read from the source tree by HelpGoldenTests (not resources).
            exclude: ["Help"],
            swiftSettings: swiftSettings
        ),
        // End to end: the real `hush` binary as separate processes against a real
        // relay process on loopback (depends on "hush" so it is built first).
        .testTarget(
            name: "HushEndToEndTests",
            // HushRelayAPI for the first-contact proof of work a raw deposit must carry;
            // HushRelayClient (with HushMessenger, HushProtocol and HushStore) to drive a transport directly
            // and to script strangers;
            // PostgresTestCluster for several relays on one database.
            // EchoBot: the example app, run against a relay like the CLI.
            dependencies: ["hush", "EchoBot", "HushDaemon", "HushRelayAPI", "HushCrypto", "HushRelayClient", "HushMessenger", "HushProtocol", "HushStore", "HushTesting", "HushSubprocess", "PostgresTestCluster"],
            swiftSettings: swiftSettings
        ),
    ]
)
