import ReceiptVerification

/// One App Store Server API request as the answers need it: where it went, what it asked, what is served there.
struct ServerAPIExchange: Sendable {
    let route: ServerAPIRoute
    let environment: ReceiptEnvironment
    /// `nil` when nothing is served in this environment.
    let data: MintedServerAPIData?
    /// The query's pairs, percent-decoded, in order.
    let query: [(String, String)]
    let body: [UInt8]
    /// The bundle id a rate limit applies to.
    let limitKey: String

    /// Every value of the query parameter `name`, in order.
    func values(_ name: String) -> [String] { query.filter { $0.0 == name }.map(\.1) }

    /// The last value of the query parameter `name`.
    func value(_ name: String) -> String? { query.last { $0.0 == name }?.1 }
}
