public import ReceiptLedger

/// How one delivery attempt ended, as the deliverer reports it to its observer (the server's
/// `receipt_server_webhook_attempts_total{type,result}`).
public struct WebhookAttempt: Sendable, Hashable {
    /// What the attempt's settlement made of the event.
    public enum Result: String, Sendable, Hashable, CaseIterable {
        /// The receiver answered 2xx.
        case delivered
        /// It failed; the event is retried after its backoff.
        case retried
        /// It failed and the event outgrew its maximum age: parked as failed.
        case parked
    }

    /// The event's id.
    public var eventID: String
    /// The event's kind (the metric's `type`).
    public var kind: LedgerEvent.Kind
    public var result: Result
    /// The receiver's HTTP status, when it answered.
    public var httpStatus: Int?
    /// Why it failed (`HTTP 500`, `timeout after 10 seconds`, a connection error), never the body.
    public var error: String?

    public init(eventID: String, kind: LedgerEvent.Kind, result: Result, httpStatus: Int?, error: String?) {
        self.eventID = eventID
        self.kind = kind
        self.result = result
        self.httpStatus = httpStatus
        self.error = error
    }
}
