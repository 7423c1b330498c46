/// How a subscription is billed (`billingPlanType`, `renewalBillingPlanType`, `commitmentRenewalBillingPlanType`).
public enum BillingPlanType: String, Sendable, Hashable, CaseIterable {
    /// The whole period paid at its start.
    case billedUpfront = "BILLED_UPFRONT"
    /// Billed monthly under a 12-month commitment.
    case monthly = "MONTHLY"
}
