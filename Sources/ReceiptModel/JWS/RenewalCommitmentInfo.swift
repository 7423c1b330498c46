/// What the next commitment of a monthly plan with a 12-month commitment renews into (a renewal info's
/// `commitmentInfo`).
public struct RenewalCommitmentInfo: SignedObject {
    public let fields: JSONObject

    public init(fields: JSONObject) { self.fields = fields }

    public static let documentedMembers = [
        "commitmentAutoRenewProductId", "commitmentAutoRenewStatus", "commitmentRenewalBillingPlanType",
        "commitmentRenewalDate", "commitmentRenewalPrice",
    ]

    public var commitmentAutoRenewProductID: String? { fields.text("commitmentAutoRenewProductId") }
    public var commitmentAutoRenewStatus: AppleEnumeration<AutoRenewStatus>? {
        fields.enumeration("commitmentAutoRenewStatus")
    }
    public var commitmentRenewalBillingPlanType: AppleEnumeration<BillingPlanType>? {
        fields.enumeration("commitmentRenewalBillingPlanType")
    }
    public var commitmentRenewalDate: ReceiptDate? { fields.milliseconds("commitmentRenewalDate") }
    /// In milliunits of the renewal info's currency.
    public var commitmentRenewalPrice: Int64? { fields.integer("commitmentRenewalPrice") }
}
