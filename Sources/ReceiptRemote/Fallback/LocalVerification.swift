package import ReceiptModel
public import ReceiptVerification

/// The fallback's first half: a receipt verified locally, and whether the decision table sends it to Apple.
///
/// ``FallbackVerifier/verifyLocally(_:request:)`` makes one; ``FallbackVerifier/askApple(_:request:)`` finishes it.
/// Between the two a caller may consult what it knows (the ledger's verified facts) and answer without Apple, and
/// the receipt is never verified twice.
public struct LocalVerification: Sendable {
    /// The local verdict.
    public let verdict: Verdict
    /// Why Apple would be asked; `nil` when the local verdict is final.
    public let trigger: FallbackTrigger?
    /// The bytes decoded from what the client sent, the only ones Apple may be sent; `nil` when nothing decoded.
    let canonical: ReceiptInput.CanonicalBytes?

    /// The result when Apple is not asked: the local verdict, decided locally, with its trigger.
    public var result: AttributedVerdict { .local(verdict, trigger: trigger) }

    package init(verdict: Verdict, trigger: FallbackTrigger?, canonical: ReceiptInput.CanonicalBytes?) {
        self.verdict = verdict
        self.trigger = trigger
        self.canonical = canonical
    }
}
