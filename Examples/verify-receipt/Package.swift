// swift-tools-version: 6.1
// The README's "Use it as a library" example as a package of its own. It depends on this repository by path and
// uses only its library products, as an application that depends on it by URL does.
//
//   swift run --package-path Examples/verify-receipt verify-receipt --root certs/test-root.pem fixtures/valid-sha256.receipt
import Foundation
import PackageDescription

// SwiftPM names a path dependency after its folder, which differs between checkouts (a clone, a worktree…).
// An application writes `.package(url: "…/app-receipt-verifier.git", from: "…")` and `package: "app-receipt-verifier"`.
let verifier = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent()  // verify-receipt
    .deletingLastPathComponent()  // Examples
    .deletingLastPathComponent()  // the repository
    .lastPathComponent.lowercased()

let package = Package(
    name: "verify-receipt",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(path: "../..")
    ],
    targets: [
        .executableTarget(
            name: "verify-receipt",
            dependencies: [
                // The verifier and the model it returns (modules ReceiptVerification and ReceiptModel).
                .product(name: "ReceiptVerification", package: verifier)
            ]
        )
    ]
)
