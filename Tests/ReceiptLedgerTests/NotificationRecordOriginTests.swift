import ReceiptModel
import ReceiptVerification
import Testing

@testable import ReceiptIntake
@testable import ReceiptLedger

/// The app and environment a verified V2 notification's record names, from whichever of its four objects says
/// which app it is about.
@Suite struct NotificationRecordOriginTests {
    static func payload(_ member: String, _ object: [(String, String)]) -> NotificationV2 {
        NotificationV2(
            fields: JSONObject(members: [
                .init(key: "notificationType", value: .string("TEST")),
                .init(key: "notificationUUID", value: .string("0b4c4c2e-4e0a-4bd8-a0a6-4a7e3b8f1d2c")),
                .init(key: "signedDate", value: .number("1700000000000")),
                .init(
                    key: member,
                    value: .object(JSONObject(members: object.map { .init(key: $0.0, value: .string($0.1)) }))),
            ]))
    }

    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let payload: NotificationV2
        let bundleID: String?
        let environment: ReceiptEnvironment?
        var testDescription: String { name }
    }

    static let cases = [
        Case(
            name: "data", payload: payload("data", [("bundleId", "org.example.app"), ("environment", "Production")]),
            bundleID: "org.example.app", environment: .production),
        Case(
            name: "summary",
            payload: payload("summary", [("bundleId", "org.example.app"), ("environment", "Sandbox")]),
            bundleID: "org.example.app", environment: .sandbox),
        Case(
            name: "sandbox external purchase token",
            payload: payload(
                "externalPurchaseToken", [("bundleId", "org.example.app"), ("externalPurchaseId", "SANDBOX_1")]),
            bundleID: "org.example.app", environment: .sandbox),
        Case(
            name: "production external purchase token",
            payload: payload("externalPurchaseToken", [("bundleId", "org.example.app"), ("externalPurchaseId", "1")]),
            bundleID: "org.example.app", environment: .production),
        Case(
            name: "app data",
            payload: payload("appData", [("bundleId", "org.example.app"), ("environment", "Sandbox")]),
            bundleID: "org.example.app", environment: .sandbox),
        Case(
            name: "a control character in the bundle id",
            payload: payload("data", [("bundleId", "org.example\u{1}"), ("environment", "Production")]),
            bundleID: nil, environment: .production),
        Case(
            name: "an empty bundle id", payload: payload("data", [("bundleId", ""), ("environment", "Production")]),
            bundleID: nil, environment: .production),
        Case(
            name: "an environment the ledger has no case for",
            payload: payload("data", [("bundleId", "org.example.app"), ("environment", "LocalTesting")]),
            bundleID: "org.example.app", environment: nil),
        Case(
            name: "no app object", payload: payload("other", [("bundleId", "org.example.app")]), bundleID: nil,
            environment: nil),
    ]

    @Test(arguments: cases)
    func theRecordNamesTheSignedAppAndEnvironment(_ origin: Case) throws {
        let record = try #require(
            LedgerEntry.notification(
                origin.payload, received: ReceiptDate(clampingMillisecondsSince1970: 0), about: nil, nil))
        #expect(record.version == LedgerNotification.version2)
        #expect(record.bundleID == origin.bundleID)
        #expect(record.environment == origin.environment)
        var entry = LedgerEntry(
            time: ReceiptDate(clampingMillisecondsSince1970: 0), endpoint: "/v1/notifications/appstore",
            receiptSHA256: "ab", verdict: .valid, reason: nil, decidedBy: .local, account: nil, transactions: [])
        entry.notification = record
        #expect(entry.unstorableReason() == nil, "what the intake records is within the limits")
    }
}
