package import HTTPTypes
package import Hummingbird
@_spi(Fuzzing) import ReceiptRemote

/// A refusal on the verifyReceipt routes, answered the way Apple's verifyReceipt answers: a status-only
/// body, `{"status":21000}` for a request it cannot read (HTTP 200, as Apple) and `{"status":21005}` when
/// overloaded. Transport failures keep an HTTP status too, so plain clients and proxies see them: 413 for a
/// body too large, 408 for one too slow, 400 for one cut short, 503 when overloaded.
package struct VerifyReceiptRefusal: RouteRefusal {
    /// Why the request was refused.
    package let error: ServerError

    package init(_ error: ServerError) {
        self.error = error
    }

    package var code: ServerError.Code { error.code }

    /// The status in the body: 21005 ("try again") when overloaded or when the ledger could not record,
    /// 21000 for every other refusal.
    package var bodyStatus: Int {
        error.code == .overloaded || error.code == .ledgerUnavailable
            ? VerifyReceiptStatus.unavailable : VerifyReceiptStatus.malformedRequest
    }

    package var verifyReceiptStatus: Int? { bodyStatus }

    package var status: HTTPResponse.Status {
        switch error.code {
        case .bodyTooLarge: HTTPResponse.Status(code: 413)
        case .bodyTimeout: HTTPResponse.Status(code: 408)
        case .incompleteBody: HTTPResponse.Status(code: 400)
        case .overloaded, .ledgerUnavailable: HTTPResponse.Status(code: 503)
        default: HTTPResponse.Status(code: 200)
        }
    }

    /// The status-only body; a ledger failure also names its code in `X-Receipt-Reason`.
    package func response(from request: Request, context: some RequestContext) -> Response {
        var response = ReceiptRoutes.jsonResponse(status, body: VerifyReceiptBody.status(bodyStatus))
        if error.code == .ledgerUnavailable { response.headers[ReceiptRoutes.reasonHeader] = error.code.description }
        if error.closesConnection { response.headers[.connection] = "close" }
        return response
    }
}
