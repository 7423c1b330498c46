// swift-tools-version: 6.1
// Benchmarks for the receipt verifier, kept in their own package so that nothing here enters the
// product graph of the root package.
import Foundation
import PackageDescription

// SwiftPM names a path dependency after its folder, which differs between checkouts (`main`, a CI clone…).
let rootPackage = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .lastPathComponent.lowercased()

let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("InternalImportsByDefault"),
    .enableUpcomingFeature("ExistentialAny"),
]

let package = Package(
    name: "app-receipt-verifier-benchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(path: "..")
    ],
    targets: [
        // The benchmark's own view of libcrypto, to measure raw RSA and digest rates as the baseline
        // (the root package's COpenSSL target is not a product).
        .systemLibrary(name: "CBenchOpenSSL", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        .executableTarget(
            name: "verify-bench",
            dependencies: [
                "CBenchOpenSSL",
                .product(name: "ReceiptVerification", package: rootPackage),
                .product(name: "ReceiptModel", package: rootPackage),
            ],
            swiftSettings: swiftSettings
        ),
    ]
)
