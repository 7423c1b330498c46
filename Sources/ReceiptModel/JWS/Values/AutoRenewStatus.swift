/// Whether a subscription renews automatically (`autoRenewStatus`, `commitmentAutoRenewStatus`).
public enum AutoRenewStatus: Int64, Sendable, Hashable, CaseIterable {
    case off = 0
    case on = 1
}
