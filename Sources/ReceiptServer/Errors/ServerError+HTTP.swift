public import HTTPTypes
public import Hummingbird
@_spi(Fuzzing) import ReceiptModel

/// `/v1/verify`'s refusals: the route throws a ``ServerError`` and Hummingbird answers it with
/// `{"error": {"code": …, "message": …}}` and the HTTP status below.
extension ServerError: RouteRefusal {
    /// `{"error": {"code": …, "message": …}}`.
    public var jsonBody: [UInt8] {
        var writer = JSONWriter(capacity: 128)
        writer.beginObject()
        writer.key("error")
        writer.beginObject()
        writer.field("code", code.description)
        writer.field("message", reason)
        writer.endObject()
        writer.endObject()
        return writer.bytes
    }

    /// The HTTP status of this refusal on `/v1/verify`.
    public var status: HTTPResponse.Status {
        switch code {
        case .bodyTooLarge: HTTPResponse.Status(code: 413)
        case .bodyTimeout: HTTPResponse.Status(code: 408)
        case .sharedSecretMismatch, .bundleIDRequired, .forbidden: HTTPResponse.Status(code: 403)
        case .unauthorized: HTTPResponse.Status(code: 401)
        case .unsupportedMediaType: HTTPResponse.Status(code: 415)
        case .overloaded, .ledgerUnavailable: HTTPResponse.Status(code: 503)
        case .ledgerDisabled, .transactionNotFound, .serverAPIDisabled, .serverAPINotFound:
            HTTPResponse.Status(code: 404)
        case .notificationRejected, .receiptNotVerified, .unknownApp: HTTPResponse.Status(code: 422)
        case .serverAPIFailed: HTTPResponse.Status(code: 502)
        case .invalidConfiguration, .digestFailed: HTTPResponse.Status(code: 500)
        default: HTTPResponse.Status(code: 400)
        }
    }

    /// `/v1/verify` answers no verifyReceipt status when it refuses.
    public var verifyReceiptStatus: Int? { nil }

    /// The refusal as `/v1/verify` sends it; an overloaded server also says when to try again.
    public func response(from request: Request, context: some RequestContext) -> Response {
        var response = ReceiptRoutes.jsonResponse(status, body: jsonBody)
        if code == .unauthorized { response.headers[.wwwAuthenticate] = #"Bearer realm="receipt-server""# }
        if closesConnection { response.headers[.connection] = "close" }
        return response
    }

    /// Whether the connection closes after this refusal, which its `Connection` header then says (as RFC 9110 asks of
    /// a 408): after a late body, once ``BodyDeadlineHandler`` has stopped reading the connection. Both endpoints'
    /// refusals (this one and ``VerifyReceiptRefusal``) ask it.
    package var closesConnection: Bool { code == .bodyTimeout }
}
