/// Which of Apple's two verifyReceipt URLs a request came in on.
///
/// Apple answers 21007 when a sandbox receipt is sent to production and 21008 the other way round;
/// the server keeps that contract on `/verifyReceipt` and `/sandbox/verifyReceipt`.
public enum AppleEndpoint: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// `POST /verifyReceipt`, the stand-in for `https://buy.itunes.apple.com/verifyReceipt`.
    case production
    /// `POST /sandbox/verifyReceipt`, the stand-in for `https://sandbox.itunes.apple.com/verifyReceipt`.
    case sandbox

    /// The route path the server serves for this endpoint.
    public var path: String {
        switch self {
        case .production: "/verifyReceipt"
        case .sandbox: "/sandbox/verifyReceipt"
        }
    }

    public var description: String { rawValue }
}
