@_spi(Fuzzing) public import ReceiptModel

/// What Get Notification History is asked: a time range (Apple keeps 180 days in Production, 30 in Sandbox) and
/// optional filters. The same body is sent for every page.
public struct NotificationHistoryQuery: Sendable, Hashable {
    /// Notifications Apple first sent at or after this instant.
    public var start: ReceiptDate
    /// … and before this one.
    public var end: ReceiptDate
    public var notificationType: String?
    public var notificationSubtype: String?
    /// Only the notifications about this transaction's customer.
    public var transactionID: String?
    /// Only those Apple failed to deliver.
    public var onlyFailures: Bool?

    public init(
        start: ReceiptDate, end: ReceiptDate, notificationType: String? = nil, notificationSubtype: String? = nil,
        transactionID: String? = nil, onlyFailures: Bool? = nil
    ) {
        self.start = start
        self.end = end
        self.notificationType = notificationType
        self.notificationSubtype = notificationSubtype
        self.transactionID = transactionID
        self.onlyFailures = onlyFailures
    }

    /// The JSON body.
    var body: [UInt8] {
        var writer = JSONWriter(capacity: 160)
        writer.beginObject()
        writer.field("startDate", start.millisecondsSince1970)
        writer.field("endDate", end.millisecondsSince1970)
        if let notificationType { writer.field("notificationType", notificationType) }
        if let notificationSubtype { writer.field("notificationSubtype", notificationSubtype) }
        if let transactionID { writer.field("transactionId", transactionID) }
        if let onlyFailures { writer.field("onlyFailures", onlyFailures) }
        writer.endObject()
        return writer.bytes
    }
}
