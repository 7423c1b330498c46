/// What the stand-in does with one request. Scripts are lists of these, consumed in order per endpoint;
/// when a script runs out, the endpoint's default (``apple`` unless changed) answers.
package indirect enum StandInBehaviour: Sendable, Hashable {
    /// Answer as Apple does: decode the receipt, 21007/21008 for the wrong endpoint, 21002 for
    /// undecodable data, 21003 when the configured verifier proves it false, 21004 for a wrong shared
    /// secret, else status 0 (21006 for an expired iOS 6 subscription) with Apple's JSON.
    case apple
    /// `{"status": N, "environment": …}`, with `is-retryable` when given.
    case status(Int, isRetryable: Bool? = nil)
    /// An HTTP error status with an empty body.
    case httpStatus(Int)
    /// HTTP 200 with exactly this body (malformed JSON, wrong types, …).
    case body(String)
    /// HTTP 200 with a syntactically valid status-0 body padded to `bytes` bytes.
    case hugeBody(bytes: Int)
    /// Waits, then behaves as `then`.
    case delayed(Duration, then: StandInBehaviour)
    /// Closes the connection without a complete response.
    case dropConnection
}
