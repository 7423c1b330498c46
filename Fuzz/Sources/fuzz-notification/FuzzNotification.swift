import FuzzSupport
import ReceiptModel
@_spi(Fuzzing) import ReceiptServer
import ReceiptVerification

// fuzz-notification: an App Store Server Notification body as POST /v1/notifications/appstore receives it from
// anyone on the network. `NotificationBody(parsing:)` (V2's signedPayload, V1's members and its unverified hints),
// then V2's payload through the whole JWS verifier, V1's latest_receipt through the receipt verifier.
//
// Checked besides "does not trap": V1's hints are one JSON object that says it is unverified.

@_cdecl("LLVMFuzzerTestOneInput")
public func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = LibFuzzer.bytes(data, size)
    FuzzNotification.run(bytes)
    return 0
}

@_cdecl("fuzz_notification_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    LibFuzzer.run(argc: argc, argv: argv, testOneInput: testOneInput)
}

enum FuzzNotification {
    static let verifier: ReceiptVerifier = {
        var anchors = TrustAnchors()
        try? anchors.addRoots(fromPath: "certs/test-jws-root.pem")
        try? anchors.addRoots(fromPath: "certs/test-root.pem")
        return ReceiptVerifier(configuration: ReceiptVerifier.Configuration(trustAnchors: anchors))
    }()

    static func run(_ bytes: [UInt8]) {
        let body: NotificationBody
        do {
            body = try NotificationBody(parsing: bytes)
        } catch {
            Sink.consume(error.code)
            return
        }
        switch body {
        case .version2(let payload):
            let verdict = verifier.verifyJWS(payload[...], kind: .notification)
            Sink.consume(verdict.description)
        case .version1(let notification):
            Sink.consume(notification.notificationType)
            Sink.consume(notification.password)
            guard notification.unverifiedHints.hasPrefix(#"{"verified":false"#) else {
                fatalError("V1 hints not marked unverified")
            }
            guard notification.unverifiedHints.utf8.count <= 16 * 1024 else {
                fatalError("V1 hints over the ledger's bound")
            }
            Sink.consume(verifier.verify(notification.latestReceipt).description)
        }
    }
}
