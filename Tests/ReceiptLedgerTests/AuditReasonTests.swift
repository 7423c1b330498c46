import ReceiptVerification
import Testing

@testable import ReceiptLedger

/// The audit trail's `reason` column: each code space reads back as its own case, and the column text is the text
/// the trail held before the reason was typed.
@Suite struct AuditReasonTests {
    @Test(arguments: [
        (AuditReason.verification(.signatureMismatch), "signature.mismatch"),
        (.verification(.ledgerConflict), "ledger.conflict"),
        (.verification(.notificationDuplicate), "notification.duplicate"),
        (.verification(Reason.Code(layerCode: "remote.rejected")), "remote.rejected"),
        (.verification(Reason.Code(layerCode: "subscription.expired_in_receipt")), "subscription.expired_in_receipt"),
        (.verifyReceiptStatus(21007), "verify_receipt.status_21007"),
        (.verifyReceiptStatus(0), "verify_receipt.status_0"),
        (.refusal(code: "server.shared_secret_mismatch"), "server.shared_secret_mismatch"),
    ])
    func writesTheTextItAlwaysHadAndReadsItBack(reason: AuditReason, text: String) {
        #expect(reason.description == text)
        #expect(AuditReason(column: text) == reason)
    }

    /// Text no case produces (a code of a later build, a hand-edited row) is kept whole, never a failed read; a
    /// status spelled otherwise than this build writes it stays that text.
    @Test(arguments: [
        "", "unknown", "made.up_code", "verify_receipt.status_021007", "verify_receipt.status_x", "server.",
    ])
    func keepsTextItDoesNotKnowAsIs(text: String) {
        let reason = AuditReason(column: text)
        #expect(reason == .unrecognized(text))
        #expect(reason.description == text)
    }
}
