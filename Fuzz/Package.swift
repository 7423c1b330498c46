// swift-tools-version: 6.1
// Coverage-guided fuzzing (libFuzzer) of every parser of outside bytes, kept in its own package so that the
// sanitizer build and its flags never touch the root package's products. It depends on the root package by path.
//
//   scripts/fuzz                       # builds this package and runs every target (FUZZ_SECONDS each)
//   scripts/fuzz fuzz-ber fuzz-ios6    # only these
//
// By hand (what scripts/fuzz runs; see docs/fuzzing.md):
//   swift build -c release --package-path Fuzz --scratch-path Fuzz/.build \
//       -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library
//
// Every fuzz target is an executable named `fuzz-NAME` whose `LLVMFuzzerTestOneInput` takes one input. SwiftPM
// links executables with `main` renamed to `<module>_main`, so each target also defines that symbol and hands
// control to libFuzzer's driver (`LLVMFuzzerRunDriver`); see Sources/LibFuzzerDriver.
import Foundation
import PackageDescription

// SwiftPM names a path dependency after its folder, which differs between checkouts (`main`, a CI clone…).
let rootPackage = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .lastPathComponent.lowercased()

let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("InternalImportsByDefault"),
    .enableUpcomingFeature("ExistentialAny"),
]

func product(_ name: String) -> Target.Dependency { .product(name: name, package: rootPackage) }

let package = Package(
    name: "app-receipt-verifier-fuzz",
    platforms: [.macOS(.v15)],
    dependencies: [.package(path: "..")],
    targets: [
        // libFuzzer's documented entry point `LLVMFuzzerRunDriver`, declared for Swift. No code.
        .target(name: "CLibFuzzer"),
        // Hands an executable's `main` to libFuzzer, and keeps results alive so the optimizer cannot drop the work.
        .target(name: "FuzzSupport", dependencies: ["CLibFuzzer"], swiftSettings: swiftSettings),

        // 1. input recognition (`ReceiptInput`) and `Base64`.
        .executableTarget(
            name: "fuzz-input",
            dependencies: ["FuzzSupport", product("ReceiptVerification")],
            swiftSettings: swiftSettings
        ),
        // 2. the BER reader, every element walked recursively.
        .executableTarget(
            name: "fuzz-ber",
            dependencies: ["FuzzSupport", product("ReceiptVerification")],
            swiftSettings: swiftSettings
        ),
        // 3. PKCS#7 SignedData and the receipt payload (`AppReceipt`, `ReceiptPayload`), rendered as Apple's JSON.
        .executableTarget(
            name: "fuzz-receipt",
            dependencies: ["FuzzSupport", product("ReceiptVerification"), product("ReceiptRemote")],
            swiftSettings: swiftSettings
        ),
        // 4. iOS 6 transaction receipts: the outer plist, the signature blob, the purchase-info plist.
        .executableTarget(
            name: "fuzz-ios6",
            dependencies: ["FuzzSupport", product("ReceiptVerification")],
            swiftSettings: swiftSettings
        ),
        // 5. the server's request JSON and `/v1/verify` options.
        .executableTarget(
            name: "fuzz-request-json",
            dependencies: ["FuzzSupport", product("ReceiptServer"), product("ReceiptIntake")],
            swiftSettings: swiftSettings
        ),
        // 5b. what the ledger reads from outside: the product catalogue, `--ledger` values, stored audit columns.
        .executableTarget(
            name: "fuzz-ledger-input",
            dependencies: ["FuzzSupport", product("ReceiptLedger")],
            swiftSettings: swiftSettings
        ),
        // 6. Apple's verifyReceipt response JSON, as the remote fallback reads it.
        .executableTarget(
            name: "fuzz-apple-response",
            dependencies: ["FuzzSupport", product("ReceiptRemote"), product("ReceiptVerification")],
            swiftSettings: swiftSettings
        ),
        // 6b. StoreKit 2 JWS and notification payloads: decoding, classification, the whole JWS verifier.
        .executableTarget(
            name: "fuzz-jws",
            dependencies: ["FuzzSupport", product("ReceiptVerification")],
            swiftSettings: swiftSettings
        ),
        // 6c. App Store Server Notification bodies (V1 and V2) as the notifications endpoint reads them.
        .executableTarget(
            name: "fuzz-notification",
            dependencies: ["FuzzSupport", product("ReceiptServer"), product("ReceiptVerification")],
            swiftSettings: swiftSettings
        ),
        // 7. end to end: decode, verify under the trusted test root at a fixed instant, render every JSON answer.
        .executableTarget(
            name: "fuzz-verify",
            dependencies: [
                "FuzzSupport", product("ReceiptVerification"), product("ReceiptRemote"), product("ReceiptServer"),
            ],
            swiftSettings: swiftSettings
        ),
        // Not a fuzz target: derives each target's seed corpus from fixtures/ and certs/ at run time.
        .executableTarget(
            name: "fuzz-seeds",
            dependencies: [product("ReceiptVerification"), product("ReceiptRemote"), product("ReceiptServer")],
            swiftSettings: swiftSettings
        ),
    ]
)
