/// Why a transaction happened (`transactionReason`).
public enum TransactionReason: String, Sendable, Hashable, CaseIterable {
    /// The customer started it (an upgrade included).
    case purchase = "PURCHASE"
    /// The App Store renewed a subscription (a downgrade takes effect as one).
    case renewal = "RENEWAL"
}
