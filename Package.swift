// swift-tools-version: 6.2
// Local verification of Apple App Store receipts on Linux.
// One target per layer; imports only point downwards:
//   COpenSSL (C) <- ReceiptCrypto <- ReceiptVerification
//   BER <- ReceiptModel <- ReceiptVerification <- VerifyLocal
//   BER, ReceiptModel, ReceiptCrypto <- ReceiptForge <- MintReceipt
//   ReceiptVerification <- ReceiptRemote (Apple's verifyReceipt, fallback policy) <- ReceiptIntake
//   ReceiptVerification <- ReceiptLedger (exactly-once transactions, owners, audit) <- ReceiptIntake
//   ReceiptLedger <- ReceiptLedgerStores (SQLite via GRDB, PostgreSQL via postgres-nio) <- ReceiptServerCommand
//   ReceiptIntake (verify -> ledger -> Apple -> record -> answer, transport-free) <- ReceiptServer, VerifyLocal
//   ReceiptForge, ReceiptCrypto <- AppleStandIn: a loopback stand-in for Apple's endpoints (verifyReceipt and the App
//   Store Server API), for tests and by hand
import PackageDescription

let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("InternalImportsByDefault"),
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "app-receipt-verifier",
    platforms: [.macOS(.v15)],
    products: [
        // What a user imports (README "Use it as a library"): the verifier with the model it returns
        // (`import ReceiptVerification` and `import ReceiptModel`; BER's error protocol comes along), the
        // remote fallback, the server's routes for embedding in a Hummingbird application, and the forge
        // for minting test receipts under one's own test CA (fixtures/README.md).
        .library(name: "ReceiptVerification", targets: ["ReceiptVerification", "ReceiptModel", "BER"]),
        .library(name: "ReceiptRemote", targets: ["ReceiptRemote"]),
        .library(name: "ReceiptLedger", targets: ["ReceiptLedger", "ReceiptLedgerStores"]),
        .library(name: "ReceiptIntake", targets: ["ReceiptIntake"]),
        .library(name: "ReceiptServer", targets: ["ReceiptServer"]),
        .library(name: "ReceiptWebhooks", targets: ["ReceiptWebhooks"]),
        .library(name: "ReceiptForge", targets: ["ReceiptForge"]),
        // The loopback stand-in for Apple, as a library for the Benchmarks package only (a package of its own):
        // its API is `package`, and the little the benchmarks need is `@_spi(Benchmarks)`.
        .library(name: "AppleStandIn", targets: ["AppleStandIn"]),
        .executable(name: "verify-local", targets: ["VerifyLocal"]),
        .executable(name: "mint-receipt", targets: ["MintReceipt"]),
        .executable(name: "receipt-server", targets: ["ReceiptServerCommand"]),
        .executable(name: "apple-standin", targets: ["AppleStandInCommand"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.2"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
    ],
    targets: [
        // OpenSSL's libcrypto through pkg-config; Debian's libssl-dev provides it.
        .systemLibrary(
            name: "COpenSSL",
            pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"])]
        ),
        // glibc's <malloc.h> (mallopt), which Swift's Glibc module leaves out; both executables tune malloc at start.
        .systemLibrary(name: "CMalloc"),
        // preadv2 with RWF_NOWAIT (a read that never waits for the disk), which Swift's Glibc module leaves out.
        .systemLibrary(name: "CFileRead"),
        // Zero-copy BER/DER reader (and the small DER writer the forge uses). No Foundation.
        .target(name: "BER", swiftSettings: swiftSettings),
        // PKCS#7 SignedData, the receipt payload, and verifyReceipt-shaped JSON. No C, no network.
        .target(name: "ReceiptModel", dependencies: ["BER"], swiftSettings: swiftSettings),
        // The only Swift module that touches OpenSSL: owned OpenSSL objects, digests, RSA, X.509 paths.
        .target(name: "ReceiptCrypto", dependencies: ["BER", "COpenSSL"], swiftSettings: swiftSettings),
        // Trust anchors, chain and signature checks, policies, verdicts.
        .target(
            name: "ReceiptVerification",
            dependencies: ["BER", "ReceiptModel", "ReceiptCrypto"],
            swiftSettings: swiftSettings
        ),
        // Mints receipts signed by the project's own test PKI (fixtures and hostile variants).
        .target(
            name: "ReceiptForge",
            dependencies: ["BER", "ReceiptModel", "ReceiptCrypto"],
            swiftSettings: swiftSettings
        ),
        // Apple's verifyReceipt client (AsyncHTTPClient) and the local-first fallback policy.
        .target(
            name: "ReceiptRemote",
            dependencies: [
                "BER", "ReceiptModel", "ReceiptCrypto", "ReceiptVerification",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        // The ledger: each transaction of a valid receipt recorded once, one owner per original transaction,
        // an append-only audit trail; the store protocol, the plan and the group commit, no storage engine.
        .target(
            name: "ReceiptLedger",
            dependencies: [
                "BER", "ReceiptModel", "ReceiptVerification",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        // The ledger's two stores: embedded SQLite (GRDB) and PostgreSQL for replicas (postgres-nio). Apart, so
        // that what needs the ledger's values but no store (the intake, verify-local) links neither engine.
        .target(
            name: "ReceiptLedgerStores",
            dependencies: [
                "BER", "ReceiptModel", "ReceiptVerification", "ReceiptLedger",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        // The application, transport-free: for each input (an app receipt, a StoreKit 2 signed transaction, a
        // notification V1 or V2) verify, consult the ledger, ask Apple when the fallback says so, record, and
        // answer a value. The server renders its answers; verify-local uses its verification.
        .target(
            name: "ReceiptIntake",
            dependencies: [
                "BER", "ReceiptModel", "ReceiptCrypto", "ReceiptVerification", "ReceiptRemote", "ReceiptLedger",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        // A faithful loopback stand-in for Apple's verifyReceipt endpoints and App Store Server API, with scripted
        // behaviours; the forge mints its JWS, ReceiptCrypto checks clients' ES256 tokens.
        .target(
            name: "AppleStandIn",
            dependencies: [
                "BER", "ReceiptModel", "ReceiptVerification", "ReceiptForge", "ReceiptCrypto",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        // Events out: the ledger's outbox delivered to the operator's backend, signed (HMAC-SHA256 through
        // ReceiptCrypto), retried with backoff, parked after a maximum age.
        .target(
            name: "ReceiptWebhooks",
            dependencies: [
                "BER", "ReceiptLedger", "ReceiptModel", "ReceiptCrypto",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        // The drop-in verifyReceipt server's routes, limits, metrics and lifecycle (Hummingbird 2).
        .target(
            name: "ReceiptServer",
            dependencies: [
                "BER", "ReceiptModel", "ReceiptVerification", "ReceiptRemote", "ReceiptLedger", "ReceiptIntake",
                "ReceiptWebhooks",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "ReceiptServerCommand",
            dependencies: [
                "ReceiptServer", "ReceiptIntake", "ReceiptRemote", "ReceiptModel", "ReceiptVerification",
                "ReceiptLedger", "ReceiptLedgerStores", "ReceiptWebhooks",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOPosix", package: "swift-nio"),
                "CMalloc",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "AppleStandInCommand",
            dependencies: [
                "AppleStandIn", "ReceiptModel", "ReceiptVerification", "ReceiptForge", "ReceiptCrypto",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "VerifyLocal",
            dependencies: [
                "ReceiptModel", "ReceiptCrypto", "ReceiptVerification", "ReceiptRemote", "ReceiptIntake", "CMalloc",
                "CFileRead",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "MintReceipt",
            dependencies: [
                "ReceiptForge",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: swiftSettings
        ),
        // Test-only helpers: locating ../shared and the built executables.
        .target(name: "TestSupport", swiftSettings: swiftSettings),

        .testTarget(name: "BERTests", dependencies: ["BER"], swiftSettings: swiftSettings),
        .testTarget(
            name: "ReceiptModelTests",
            dependencies: ["ReceiptModel", "BER", "TestSupport"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "ReceiptCryptoTests",
            dependencies: ["BER", "COpenSSL", "ReceiptCrypto", "TestSupport"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "ReceiptVerificationTests",
            dependencies: ["ReceiptVerification", "ReceiptModel", "ReceiptCrypto", "ReceiptForge", "TestSupport"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "ReceiptForgeTests",
            dependencies: ["ReceiptForge", "ReceiptModel", "ReceiptCrypto", "BER", "TestSupport"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "ReceiptRemoteTests",
            dependencies: [
                "ReceiptRemote", "ReceiptCrypto", "AppleStandIn", "ReceiptForge", "ReceiptModel", "ReceiptVerification",
                "TestSupport",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "ReceiptServerTests",
            dependencies: [
                "ReceiptServer", "ReceiptIntake", "ReceiptRemote", "AppleStandIn", "ReceiptForge", "ReceiptModel",
                "ReceiptVerification", "ReceiptLedger", "ReceiptLedgerStores", "ReceiptWebhooks", "TestSupport",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "ReceiptLedgerTests",
            dependencies: [
                "ReceiptLedger", "ReceiptLedgerStores", "ReceiptIntake", "ReceiptForge", "ReceiptModel",
                "ReceiptVerification", "ReceiptRemote", "TestSupport",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "ReceiptWebhooksTests",
            dependencies: [
                "ReceiptWebhooks", "ReceiptLedger", "ReceiptLedgerStores", "ReceiptModel", "ReceiptVerification",
                "TestSupport",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ],
            swiftSettings: swiftSettings
        ),
        // Runs the built executables; depending on them makes `swift test` build them first.
        .testTarget(
            name: "CommandLineTests",
            dependencies: [
                "CFileRead", "VerifyLocal", "MintReceipt", "ReceiptServerCommand", "AppleStandInCommand", "TestSupport",
                // The loopback receiver the webhook process tests run in the test process.
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
    ]
)
