/// Where a monthly plan with a 12-month commitment stands (a transaction's `commitmentInfo`).
public struct TransactionCommitmentInfo: SignedObject {
    public let fields: JSONObject

    public init(fields: JSONObject) { self.fields = fields }

    public static let documentedMembers = [
        "billingPeriodNumber", "totalBillingPeriods", "commitmentExpiresDate", "commitmentPrice",
    ]

    /// Which of the commitment's billing periods this transaction pays (1 to 12).
    public var billingPeriodNumber: Int64? { fields.integer("billingPeriodNumber") }
    public var totalBillingPeriods: Int64? { fields.integer("totalBillingPeriods") }
    public var commitmentExpiresDate: ReceiptDate? { fields.milliseconds("commitmentExpiresDate") }
    /// In milliunits of the transaction's currency.
    public var commitmentPrice: Int64? { fields.integer("commitmentPrice") }
}
