public import ReceiptModel

/// The clock a server runs the deliverer with: the wall clock it is given (the server's configured one) and
/// `Task.sleep` on the continuous clock.
public struct SystemWebhookClock: WebhookClock {
    private let wallClock: @Sendable () -> ReceiptDate

    /// - Parameter wallClock: where "now" comes from, e.g. `ReceiptDate.systemNow`.
    public init(wallClock: @escaping @Sendable () -> ReceiptDate) {
        self.wallClock = wallClock
    }

    public func now() -> ReceiptDate { wallClock() }

    public func sleep(for duration: Duration) async throws {
        try await Task.sleep(for: duration)
    }
}
