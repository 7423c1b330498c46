import HTTPTypes
import ReceiptIntake
import ReceiptServer
import Testing

/// The intake's refusals reach the wire with the codes the server always answered, and a failed digest is a 500.
@Suite struct IntakeErrorTests {
    static let codes: [IntakeError.Code] = [
        .overloaded, .sharedSecretMismatch, .invalidBase64, .bundleIDRequired, .ledgerUnavailable, .ledgerDisabled,
        .notificationRejected, .digestFailed, .unknownApp, .serverAPIDisabled, .serverAPIFailed, .transactionNotFound,
        .receiptNotVerified,
    ]

    @Test(arguments: codes)
    func eachRefusalKeepsItsCodeAndMessage(code: IntakeError.Code) {
        let error = ServerError(IntakeError(code, "why"))
        #expect(error.code.description == code.description)
        #expect(error.reason == "why")
    }

    @Test func statusesByKind() {
        #expect(ServerError(IntakeError(.digestFailed, "")).status.code == 500)
        #expect(ServerError(IntakeError(.overloaded, "")).status.code == 503)
        #expect(ServerError(IntakeError(.notificationRejected, "")).status.code == 422)
        #expect(ServerError(IntakeError(.ledgerDisabled, "")).status.code == 404)
        #expect(ServerError(IntakeError(.receiptNotVerified, "")).status.code == 422)
        #expect(ServerError(IntakeError(.serverAPIFailed, "")).status.code == 502)
        #expect(ServerError(IntakeError(.transactionNotFound, "")).status.code == 404)
        #expect(ServerError(IntakeError(.serverAPIDisabled, "")).status.code == 404)
    }
}
