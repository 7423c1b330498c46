package import Hummingbird

/// An error a receipt route throws to refuse a request before (or instead of) answering with a verdict.
///
/// Hummingbird's router writes the response of any `HTTPResponseError` it catches; this protocol adds what
/// ``RouteObserverMiddleware`` needs to count and log the refusal without reading its body.
package protocol RouteRefusal: HTTPResponseError {
    /// The stable code of what was wrong.
    var code: ServerError.Code { get }
    /// The verifyReceipt status the body carries, on the routes that answer Apple's way; `nil` otherwise.
    var verifyReceiptStatus: Int? { get }
}
