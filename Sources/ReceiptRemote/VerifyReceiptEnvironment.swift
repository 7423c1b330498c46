/// Which of Apple's two verifyReceipt endpoints a call goes to.
public enum VerifyReceiptEnvironment: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// `https://buy.itunes.apple.com/verifyReceipt` by default.
    case production
    /// `https://sandbox.itunes.apple.com/verifyReceipt` by default.
    case sandbox

    /// The other endpoint: where 21007 (sandbox receipt) and 21008 (production receipt) send a call.
    public var other: VerifyReceiptEnvironment { self == .production ? .sandbox : .production }

    public var description: String { rawValue }
}
