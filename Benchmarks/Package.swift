// swift-tools-version: 6.1
// Benchmarks for the receipt verifier, kept in their own package so that nothing here (package-benchmark and
// its dependencies) enters the product graph of the root package.
//
//   swift package --package-path Benchmarks --scratch-path .build-bench benchmark            # the suites
//   swift run -c release --package-path Benchmarks --scratch-path .build-bench verify-bench  # 2-thread scaling, --loop
//
// scripts/bench runs both, the server load test and the comparison with other tools, and writes BENCHMARKS.md.
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
        .package(path: ".."),
        // Only the malloc interposer trait: mallocCountTotal is what the checked-in thresholds guard. (The
        // default traits add an ARC runtime interposer whose package this machine's mirror does not carry.)
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
        // The App Store Server API client (issue 26): signing a token, verifying a signed transaction, and whole
        // calls against the stand-in in this process on loopback, as ratios to OpenSSL's raw ECDSA P-256 verify.
        // A suite of its own, so that the receipt suites' runs and thresholds are unchanged.
        .executableTarget(
            name: "ServerAPIBenchmarks",
            dependencies: [
                "CBenchOpenSSL",
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "ReceiptVerification", package: rootPackage),
                .product(name: "ReceiptRemote", package: rootPackage),
                .product(name: "AppleStandIn", package: rootPackage),
            ],
            path: "ServerAPIBenchmarks",
            swiftSettings: swiftSettings,
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        // The benchmark's own view of libcrypto, to measure raw RSA and digest rates as the floor
        // (the root package's COpenSSL target is not a product).
        .systemLibrary(name: "CBenchOpenSSL", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        // The package-benchmark suites. The benchmark plugin finds a suite by its folder's parent being named
        // `Benchmarks`, which this package's own folder is: hence `ReceiptBenchmarks/` at the top level.
        .executableTarget(
            name: "ReceiptBenchmarks",
            dependencies: [
                "CBenchOpenSSL",
                "HostileReceipts",
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "ReceiptVerification", package: rootPackage),
                .product(name: "ReceiptRemote", package: rootPackage),
                .product(name: "ReceiptForge", package: rootPackage),
                .product(name: "ReceiptServer", package: rootPackage),
            ],
            path: "ReceiptBenchmarks",
            swiftSettings: swiftSettings,
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        // The most expensive receipts an attacker can make within the verifier's limits, and ordinary receipts of
        // the same request size, minted with the forge over throwaway certificates (made at run time).
        .target(
            name: "HostileReceipts",
            dependencies: [
                .product(name: "ReceiptForge", package: rootPackage),
                .product(name: "ReceiptVerification", package: rootPackage),
            ],
            swiftSettings: swiftSettings
        ),
        // Mints them into a folder for scripts/bench-hostile (the server under wrk), or measures the verifier's
        // cost of each in-process; `loop` repeats one for perf or callgrind.
        .executableTarget(
            name: "hostile-bench",
            dependencies: [
                "HostileReceipts",
                .product(name: "ReceiptVerification", package: rootPackage),
            ],
            swiftSettings: swiftSettings
        ),
        // StoreKit 2 JWS verification (issue 14), warm and cold, on 1 and 2 threads: the Swift half of
        // scripts/bench-jws, whose C++ half (crypto-engines, mode `jws`) measures OpenSSL's and Crypto++'s raw
        // ECDSA P-256 rate on the same signature.
        .executableTarget(
            name: "jws-bench",
            dependencies: [
                .product(name: "ReceiptVerification", package: rootPackage)
            ],
            swiftSettings: swiftSettings
        ),
        // A plain executable for what package-benchmark does not measure: 2-thread scaling of warm verification
        // against raw RSA on the same machine, and `--loop` runs of one operation for `perf record`.
        .executableTarget(
            name: "verify-bench",
            dependencies: [
                "CBenchOpenSSL",
                .product(name: "ReceiptVerification", package: rootPackage),
            ],
            swiftSettings: swiftSettings
        ),
    ]
)
