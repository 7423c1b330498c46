public import ReceiptVerification

extension Reason.Code {
    /// The ledger refused the verification (`--on-conflict reject`): a purchase in the receipt belongs to another
    /// account than the one the verification named.
    public static let ledgerConflict = Reason.Code(layerCode: "ledger.conflict")

    /// The ledger had recorded this notification before (a retry): nothing of it was applied again. An audit reason
    /// only, never a verdict's.
    public static let notificationDuplicate = Reason.Code(layerCode: "notification.duplicate")
}
