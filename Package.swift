// swift-tools-version: 6.1
// Local verification of Apple App Store receipts on Linux.
// One target per layer; imports only point downwards:
//   COpenSSL (C) <- ReceiptCrypto <- ReceiptVerification
//   BER <- ReceiptModel <- ReceiptVerification <- VerifyLocal
//   BER, ReceiptModel, ReceiptCrypto <- ReceiptForge <- MintReceipt
import PackageDescription

let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("InternalImportsByDefault"),
    .enableUpcomingFeature("ExistentialAny"),
]

let package = Package(
    name: "app-receipt-verifier",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "ReceiptVerification", targets: ["ReceiptVerification"]),
        .library(name: "ReceiptModel", targets: ["ReceiptModel"]),
        .library(name: "BER", targets: ["BER"]),
        .library(name: "ReceiptForge", targets: ["ReceiptForge"]),
        .executable(name: "verify-local", targets: ["VerifyLocal"]),
        .executable(name: "mint-receipt", targets: ["MintReceipt"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2")
    ],
    targets: [
        // OpenSSL's libcrypto through pkg-config; Debian's libssl-dev provides it.
        .systemLibrary(
            name: "COpenSSL",
            pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"])]
        ),
        // Zero-copy BER/DER reader (and the small DER writer the forge uses). No Foundation.
        .target(name: "BER", swiftSettings: swiftSettings),
        // PKCS#7 SignedData, the receipt payload, and verifyReceipt-shaped JSON. No C, no network.
        .target(name: "ReceiptModel", dependencies: ["BER"], swiftSettings: swiftSettings),
        // The only Swift module that touches OpenSSL: owned OpenSSL objects, digests, RSA, X.509 paths.
        .target(name: "ReceiptCrypto", dependencies: ["COpenSSL"], swiftSettings: swiftSettings),
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
        .executableTarget(
            name: "VerifyLocal",
            dependencies: [
                "ReceiptModel", "ReceiptVerification",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
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
            dependencies: ["ReceiptCrypto", "TestSupport"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "ReceiptVerificationTests",
            dependencies: ["ReceiptVerification", "ReceiptModel", "ReceiptForge", "TestSupport"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "ReceiptForgeTests",
            dependencies: ["ReceiptForge", "ReceiptModel", "TestSupport"],
            swiftSettings: swiftSettings
        ),
        // Runs the built executables; depending on them makes `swift test` build them first.
        .testTarget(
            name: "VerifyLocalTests",
            dependencies: ["VerifyLocal", "MintReceipt", "TestSupport"],
            swiftSettings: swiftSettings
        ),
    ]
)
