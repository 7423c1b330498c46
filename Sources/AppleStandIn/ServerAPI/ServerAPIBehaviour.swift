/// What the stand-in's App Store Server API does with one request. Scripts of these are consumed in order per
/// environment (apart from the verifyReceipt scripts); when one runs out, the environment's API default
/// (``apple`` unless changed) answers.
package indirect enum ServerAPIBehaviour: Sendable, Hashable {
    /// Answer as Apple does, from the environment's ``ServerAPIData``.
    case apple
    /// HTTP 429 `{"errorCode":4290000,…}` with `Retry-After` the UNIX time in milliseconds this long after the
    /// request arrived; the stand-in then holds the app rate-limited until that instant (see
    /// ``AppleStandIn/rateLimitViolations()``).
    case rateLimited(retryAfterMilliseconds: Int64)
    /// As ``rateLimited(retryAfterMilliseconds:)`` with an absolute `Retry-After` (UNIX milliseconds).
    case rateLimitedUntil(unixMilliseconds: Int64)
    /// That HTTP status with `{"errorCode": N, "errorMessage": …}` (500/5000001, 404/4040002 retryable, 404/4040010
    /// not found in this environment, …).
    case apiError(httpStatus: Int, errorCode: Int64)
    /// HTTP 401 with an empty body, whatever the token.
    case unauthorized
    /// Apple's answer with the JWS at this index of the page's list broken: one symbol of its signature segment
    /// changed, so it stays well-formed base64url and only the signature check fails. Lists: `signedTransactions`,
    /// `notificationHistory[].signedPayload`, the flattened `lastTransactions[].signedTransactionInfo`, and for
    /// Get Transaction Info index 0 is `signedTransactionInfo`.
    case forgedItem(index: Int)
    /// Waits, then behaves as `then`.
    case delayed(Duration, then: ServerAPIBehaviour)
    /// Closes the connection without a complete response.
    case dropConnection
    /// HTTP 200 with a body that is not JSON.
    case malformed
}
