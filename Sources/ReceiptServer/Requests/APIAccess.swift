internal import HTTPTypes
import Hummingbird
import ReceiptIntake

/// Who may use the `/v1` routes that read or bind ledger state on a backend's behalf: `GET /v1/transactions/{id}`,
/// `GET /v1/entitlements`, `POST /v1/verify` naming an `account`, and `POST /v1/sync` (which also spends the app's
/// App Store Server API budget). They tell who owns what and bind purchases to accounts, on the listener Apple must
/// reach for notifications, so they are the backend's alone.
///
/// - With tokens (`RECEIPT_SERVER_API_TOKENS`, comma-separated so that one can be rotated in before the other
///   leaves): `Authorization: Bearer <token>` must name one of them, compared in constant time against every one;
///   without the header 401 `server.unauthorized`, with another token 403 `server.forbidden`.
/// - Without tokens: served only while the server listens on a loopback address (127.0.0.0/8, `::1`,
///   `localhost`), where only the machine's own processes reach it; elsewhere 403 `server.forbidden`.
///
/// Apple's routes keep Apple's authentication (the shared secret on verifyReceipt, the signature on
/// notifications). Tokens never reach a log: they live here, and the access log writes no header.
struct APIAccess: Sendable {
    private let tokens: [[UInt8]]
    private let servesWithoutTokens: Bool

    init(configuration: ReceiptServerConfiguration) {
        tokens = configuration.apiTokens.map { Array($0.utf8) }.filter { !$0.isEmpty }
        servesWithoutTokens = Self.isLoopback(configuration.host)
    }

    /// A sentence for the start-up log: how the backend's routes are protected.
    var summary: String {
        if !tokens.isEmpty {
            return "ledger reads and account binding need a bearer token (\(tokens.count) configured)"
        }
        if servesWithoutTokens {
            return "no RECEIPT_SERVER_API_TOKENS: ledger reads and account binding are served to loopback callers only"
        }
        return "no RECEIPT_SERVER_API_TOKENS and a non-loopback address: ledger reads and account binding are refused"
    }

    /// Whether a request may use a protected route.
    /// - Throws: ``ServerError`` ``ServerError/Code/unauthorized`` or ``ServerError/Code/forbidden``.
    func authorize(_ request: Request) throws(ServerError) {
        guard !tokens.isEmpty else {
            guard servesWithoutTokens else {
                throw ServerError(
                    .forbidden,
                    "this route reads or binds ledger state; the server listens beyond loopback and has no "
                        + "RECEIPT_SERVER_API_TOKENS configured")
            }
            return
        }
        guard let header = request.headers[.authorization] else {
            throw ServerError(.unauthorized, "this route needs Authorization: Bearer <token>")
        }
        let value = Array(header.utf8)
        let scheme = Array("bearer ".utf8)
        guard value.count > scheme.count,
            zip(value.prefix(scheme.count), scheme).allSatisfy({ $0.0 | 0x20 == $0.1 | 0x20 })
        else {
            throw ServerError(.unauthorized, "this route needs Authorization: Bearer <token>")
        }
        let presented = Array(value[scheme.count...].drop(while: { $0 == UInt8(ascii: " ") }))
        // Every configured token is compared, each in constant time: neither which one matched nor how much of
        // one did shows in the time taken.
        var matched = false
        for token in tokens { matched = IntakeRules.constantTimeEquals(token, presented) || matched }
        guard matched else { throw ServerError(.forbidden, "the bearer token is not one this server accepts") }
    }

    /// Whether `host` is a loopback address: 127.0.0.0/8, `::1` (bracketed or not), or `localhost`.
    static func isLoopback(_ host: String) -> Bool {
        let name = host.lowercased()
        if name == "localhost" || name == "::1" || name == "[::1]" { return true }
        let parts = name.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts[0] == "127" && parts.allSatisfy { UInt8($0) != nil }
    }
}
