public import ReceiptVerification

/// The signed items of one answer or one walk (every page), with the environment that gave them.
public struct SignedItems: Sendable {
    /// The environment whose API answered (after any Production → Sandbox hop).
    public let environment: ReceiptEnvironment
    /// Every item, in Apple's order; invalid ones included, each with its reason.
    public let items: [SignedItem]
    /// The pages walked (1 for a single answer).
    public let pages: Int

    public init(environment: ReceiptEnvironment, items: [SignedItem], pages: Int) {
        self.environment = environment
        self.items = items
        self.pages = pages
    }

    /// The items that verified.
    public var valid: [SignedItem] { items.filter(\.isValid) }
    /// The items that did not, each with its verdict's reason.
    public var failed: [SignedItem] { items.filter { !$0.isValid } }
}
