// swift-tools-version: 6.1
//
// Hush: an end-to-end encrypted messaging core.
// Dependencies point down only:
//   hush (CLI) -> Messenger / Relay / RelayClient / Vectors -> Store / Keystore -> Protocol -> Crypto -> C
// Only HushCrypto imports libsodium; only HushDatabase imports SQLCipher.
import PackageDescription

let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
]

let package = Package(
    name: "Hush",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "hush", targets: ["hush"]),
        .library(name: "HushCrypto", targets: ["HushCrypto"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", exact: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", exact: "1.16.2"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", exact: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket", exact: "2.8.1"),
        .package(url: "https://github.com/swift-server/async-http-client", exact: "1.37.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", exact: "2.13.0"),
        .package(url: "https://github.com/apple/swift-nio", exact: "2.101.3"),
        .package(url: "https://github.com/apple/swift-http-types", exact: "1.8.0"),
    ],
    targets: [
        // libsodium from Debian (libsodium-dev). Only HushCrypto may import it.
        .systemLibrary(
            name: "CSodium",
            pkgConfig: "libsodium",
            providers: [.apt(["libsodium-dev"])]
        ),
        // SQLCipher from Debian (libsqlcipher-dev). Never link plain `sqlite3`
        // anywhere in this package: it exports the same symbols as SQLCipher,
        // and whichever library loads first silently serves every call, so a
        // "keyed" database would land on disk in plaintext.
        .systemLibrary(
            name: "CSQLCipher",
            pkgConfig: "sqlcipher",
            providers: [.apt(["libsqlcipher-dev"])]
        ),
        .target(
            name: "HushCrypto",
            dependencies: ["CSodium"],
            swiftSettings: swiftSettings
        ),
        // The SQLCipher layer shared by the client store and the relay: the only
        // module that imports CSQLCipher.
        .target(
            name: "HushDatabase",
            dependencies: ["CSQLCipher", "HushCrypto"],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "HushProtocol",
            dependencies: ["HushCrypto"],
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
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        // HTTP + WebSocket client of the relay, used by the messenger, tests and the load generator.
        .target(
            name: "HushRelayClient",
            dependencies: [
                "HushRelayAPI", "HushProtocol", "HushCrypto",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "HummingbirdWSClient", package: "hummingbird-websocket"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
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
        .target(
            name: "HushVectors",
            dependencies: ["HushCrypto"],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "hush",
            dependencies: [
                "HushCrypto",
                "HushVectors",
                "HushRelay",
                "HushAudit",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "HushBench",
            dependencies: [
                "HushCrypto", "HushProtocol", "HushRelay", "HushRelayAPI", "HushRelayClient",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            path: "Benchmarks/HushBench",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "HushCryptoTests",
            dependencies: ["HushCrypto"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "HushDatabaseTests",
            dependencies: ["HushDatabase", "HushCrypto"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "HushRelayTests",
            dependencies: [
                "HushRelay", "HushRelayAPI", "HushRelayClient", "HushAudit", "HushProtocol", "HushCrypto",
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "HummingbirdWSClient", package: "hummingbird-websocket"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "HushVectorsTests",
            dependencies: ["HushVectors", "HushCrypto"],
            swiftSettings: swiftSettings
        ),
    ]
)
