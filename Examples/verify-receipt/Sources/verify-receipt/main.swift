// verify-receipt [--root FILE]... FILE...
//
// Verifies App Store receipts on this machine and prints, for each file, `VALID <bundle id> <environment>` and
// one `<product id> <transaction id>` line per in-app purchase, or `INVALID <reason code>` or
// `INCONCLUSIVE <reason code>`. Exits 0 when every file is valid, else 1 (64 for a usage error).
import Foundation
import ReceiptModel
import ReceiptVerification

let usage = "usage: verify-receipt [--root FILE]... FILE..."

// Apple's root certificates are pinned; --root trusts one more (PEM or DER), e.g. a test CA.
var anchors = TrustAnchors()
var files: [String] = []
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
    if argument == "--root" {
        guard let path = arguments.popFirst() else {
            print(usage)
            exit(64)
        }
        do {
            try anchors.addRoots(fromPath: path)
        } catch {
            print("ERROR \(error)")
            exit(64)
        }
    } else if argument.hasPrefix("-") {
        print(usage)
        exit(64)
    } else {
        files.append(argument)
    }
}
if files.isEmpty {
    print(usage)
    exit(64)
}

// One verifier for every file: it is Sendable and remembers the certificate chains it verified.
let verifier = ReceiptVerifier(configuration: .init(trustAnchors: anchors))
var allValid = true

for path in files {
    guard let data = FileManager.default.contents(atPath: path) else {
        print("ERROR cannot read \(path)")
        allValid = false
        continue
    }
    // DER, base64 text or an iOS 6 receipt: the verifier recognizes the form. Bad bytes are a verdict, not an error.
    let verdict = verifier.verify(data)
    let environment = verdict.environment?.rawValue ?? "-"

    // `verifiedReceipt` is non-nil only when the outcome is valid.
    switch verdict.verifiedReceipt {
    case .appReceipt(let receipt)?:
        print("VALID \(receipt.payload.bundleID ?? "-") \(environment)")
        for purchase in receipt.payload.inAppPurchases {
            print("\(purchase.productID ?? "-") \(purchase.transactionID ?? "-")")
        }
    case .iOS6(let receipt)?:
        let purchase = receipt.purchaseInfo
        print("VALID \(purchase.bundleID ?? "-") \(environment)")
        print("\(purchase.productID ?? "-") \(purchase.transactionID ?? "-")")
    case nil:
        // Invalid or inconclusive; the first reason is the check that decided.
        print("\(verdict.outcome.rawValue.uppercased()) \(verdict.reason?.code.description ?? "-")")
        allValid = false
    }
}
exit(allValid ? 0 : 1)
