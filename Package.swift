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
        // ML-KEM-768 only (HushProtocol/KEM/MLKEM768Prekey.swift); libsodium stays the provider for everything else.
        .package(url: "https://github.com/apple/swift-crypto", exact: "4.5.2"),
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
        .target(
            name: "HushProtocol",
            dependencies: [
                "HushCrypto",
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "HushVectors",
            dependencies: ["HushCrypto", "HushProtocol"],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "hush",
            dependencies: [
                "HushCrypto",
                "HushVectors",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: swiftSettings
        ),
        // Writes Vectors/protocol/*.json from fixed seeds (`swift run HushVectorGenerator Vectors/protocol`).
        .executableTarget(
            name: "HushVectorGenerator",
            dependencies: ["HushCrypto", "HushProtocol", "HushVectors"],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "HushBench",
            dependencies: ["HushCrypto", "HushProtocol"],
            path: "Benchmarks/HushBench",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "HushCryptoTests",
            dependencies: ["HushCrypto"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "HushProtocolTests",
            dependencies: ["HushProtocol", "HushCrypto", "HushVectors"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "HushVectorsTests",
            dependencies: ["HushVectors", "HushCrypto"],
            swiftSettings: swiftSettings
        ),
    ]
)
