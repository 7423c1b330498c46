import Foundation
import FuzzSupport
import ReceiptModel
@_spi(Fuzzing) import ReceiptRemote
@_spi(Fuzzing) import ReceiptServer
import ReceiptVerification

// fuzz-verify: end to end, as `verify-local --root certs/test-root.pem` and the server do it. The bytes are
// recognized and decoded once (`ReceiptVerifier.verify`, whose verdict carries what decoded), verified under the project's trusted test
// root (minted fixtures are signed by it, so mutants reach the chain, signature and policy checks), and every
// answer is rendered: Apple's `receipt` JSON, the server's `/verifyReceipt` body (status-0 or status-only)
// and its `/v1/verify` body. Time is fixed: the receipt's creation date, and a fixed instant.
// Each input is also verified as the purchase-info of an iOS 6 receipt: base64-encoded into the plist of
// fixtures/ios6-valid.b64 in place of its own, so the signature check, the policy and the renderers see
// hostile purchase-info (dates, quantities, ids) without the fuzzer having to mutate through base64.
//
// Checked besides "does not trap":
// - a new verifier per input (cold chain cache), verifying the same bytes twice: the verdict with a warm
//   cache has the same outcome and reasons as the cold one (issue 10, class 5);
// - every rendered body is valid UTF-8 and one JSON object the server's own parser reads.

@_cdecl("LLVMFuzzerTestOneInput")
public func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = LibFuzzer.bytes(data, size)
    FuzzVerify.run(bytes)
    return 0
}

@_cdecl("fuzz_verify_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    // Loads the test root and the iOS 6 fixture before the first input, failing early if they cannot be read.
    Sink.consume(FuzzVerify.anchors)
    Sink.consume(FuzzVerify.ios6Signature)
    return LibFuzzer.run(argc: argc, argv: argv, testOneInput: testOneInput)
}

enum FuzzVerify {
    /// The receipts' creation instant in fixtures/ (2025-06-15T09:30:00Z), used as the fixed validation time.
    static let fixedInstant = ReceiptDate(clampingMillisecondsSince1970: 1_749_979_800_000)
    /// The "answered at" instant of the rendered bodies.
    static let requestDate = ReceiptDate(clampingMillisecondsSince1970: 1_750_000_000_123)

    /// Apple's pinned roots plus the test root, as `verify-local --root` loads it. `FUZZ_TEST_ROOT` names the
    /// file; by default certs/test-root.pem of the checkout this source file is in.
    static let anchors: TrustAnchors = {
        let path =
            ProcessInfo.processInfo.environment["FUZZ_TEST_ROOT"]
            ?? URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
                "../../../certs/test-root.pem"
            ).standardized.path
        var anchors = TrustAnchors()
        do {
            try anchors.addRoots(fromPath: path)
        } catch {
            fatalError("fuzz-verify: cannot load the test root \(path): \(error)")
        }
        return anchors
    }()

    /// The signature blob (base64 text) of fixtures/ios6-valid.b64; `FUZZ_IOS6_FIXTURE` names another file.
    static let ios6Signature: String = {
        let path =
            ProcessInfo.processInfo.environment["FUZZ_IOS6_FIXTURE"]
            ?? URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
                "../../../fixtures/ios6-valid.b64"
            ).standardized.path
        guard let text = FileManager.default.contents(atPath: path),
            case .success(.iOS6(let receipt)) = Result(catching: { () throws(ReceiptError) in
                try ReceiptInput(bytes: [UInt8](text))
            })
        else { fatalError("fuzz-verify: \(path) is not an iOS 6 receipt") }
        return receipt.entries["signature"] ?? ""
    }()

    /// A policy that every fixture's bundle and version pass, so valid mutants reach each policy check.
    static let policy = ReceiptPolicy(
        acceptedBundleIDs: ["org.example.receiptforge.sample", "org.example.receiptforge.ios6"],
        minimumAppVersion: "1.2")

    static func run(_ bytes: [UInt8]) {
        let ios6 = Array(
            "{\n\t\"signature\" = \"\(ios6Signature)\";\n\t\"purchase-info\" = \"\(Base64.encode(bytes))\";\n}".utf8)
        verify(bytes)
        verify(ios6)
    }

    static func verify(_ bytes: [UInt8]) {
        let verifier = ReceiptVerifier(
            configuration: .init(trustAnchors: anchors, validationTime: .receiptCreation, chainCacheCapacity: 4))
        let cold = verifier.verify(bytes)
        let warm = verifier.verify(bytes)
        Oracle.check(
            warm.outcome == cold.outcome && warm.reasons.map(\.code) == cold.reasons.map(\.code),
            "verify: cold cache \(cold.outcome) \(cold.reasons.map(\.code)) but warm \(warm.outcome) \(warm.reasons.map(\.code))"
        )
        render(cold, bytes: bytes)
        render(verifier.verify(bytes, validationTime: .fixed(fixedInstant), policy: policy), bytes: bytes)
    }

    static func render(_ verdict: Verdict, bytes: [UInt8]) {
        Sink.consume(verdict.description)
        let result = AttributedVerdict.local(verdict)
        for excludeOld in [false, true] {
            check(
                VerdictJSON.response(result, requestDate: requestDate, excludeOldTransactions: excludeOld),
                what: "/v1/verify body")
        }
        check(
            VerdictJSON.report(
                file: "fuzz", result, attributed: true, receipt: verdict.receipt, error: verdict.decodingError),
            what: "verify-local JSON line")
        switch verdict.receipt {
        case .appReceipt(let receipt)?:
            check(AppleReceiptJSON.render(receipt.payload, requestDate: requestDate), what: "receipt JSON")
            check(
                VerifyReceiptBody.valid(
                    payload: receipt.payload, environment: verdict.environment?.rawValue ?? "Sandbox",
                    requestDate: requestDate,
                    latestReceiptInfo: LatestReceiptInfo.purchases(in: receipt.payload, excludingOld: true),
                    latestReceipt: bytes.count <= 4096 ? Array(Base64.encode(bytes).utf8)[...] : nil),
                what: "/verifyReceipt status-0 body")
        case .iOS6?, nil:
            break
        }
        for endpoint in [ReceiptEnvironment.production, .sandbox] {
            check(
                VerifyReceiptBody.status(VerifyReceiptStatus.status(of: result, endpoint: endpoint)),
                what: "/verifyReceipt status body")
        }
    }

    static func check(_ body: [UInt8], what: String) {
        Oracle.check(String(validating: body, as: UTF8.self) != nil, "verify: the \(what) is not valid UTF-8")
        do {
            Sink.consume(try RequestJSON(parsing: body).members.count)
        } catch {
            Oracle.check(
                false,
                "verify: the \(what) is not one JSON object: \(error.reason): \(String(decoding: body.prefix(200), as: UTF8.self))"
            )
        }
    }
}
