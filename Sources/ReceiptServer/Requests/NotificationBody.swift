public import ReceiptIntake
import ReceiptLedger
@_spi(Fuzzing) import ReceiptModel

/// An App Store Server Notification's body as `POST /v1/notifications/appstore` receives it, parsed but not
/// verified: version 2's `signedPayload`, or version 1's members.
@_spi(Fuzzing) public enum NotificationBody: Sendable {
    /// `{"signedPayload": "<jws>"}`.
    case version2(signedPayload: [UInt8])
    /// `notification_type`, `password`, `unified_receipt.latest_receipt`, and the unsigned members as received.
    case version1(NotificationV1Call)

    /// How deep a body's JSON may nest (V1's `unified_receipt.latest_receipt_info[].…` is 3 deep).
    public static let maximumDepth = 8

    /// Parses a body.
    /// - Throws: ``ServerError`` `server.invalid_json`, `notification.missing_payload`, or
    ///   `notification.rejected` for a V1 body without `unified_receipt.latest_receipt`.
    public init(parsing body: [UInt8]) throws(ServerError) {
        var reader = JSONReader(body, maximumDepth: Self.maximumDepth)
        let object: JSONObject
        do {
            object = JSONObject(members: try reader.topLevelMembers().map { .init(key: $0.key, value: $0.value) })
        } catch {
            throw ServerError(.invalidJSON, "the notification is not a JSON object: \(error.reason)")
        }
        // A member that decides anything must be given once: readers that take the first and the last of two would
        // see two notifications in one body.
        try Self.requireUnique(["signedPayload", "notification_type", "password", "unified_receipt"], in: object)
        // Exactly one version: a body with both signedPayload and notification_type is neither.
        if object["signedPayload"] != nil, object["notification_type"] != nil {
            throw ServerError(
                .invalidJSON, "the body has both signedPayload (version 2) and notification_type (version 1)")
        }
        if let signed = object["signedPayload"] {
            guard let text = signed.stringValue else {
                throw ServerError(.invalidJSON, "signedPayload is not a string")
            }
            self = .version2(signedPayload: Array(text.utf8))
            return
        }
        guard let type = object["notification_type"] else {
            throw ServerError(
                .missingNotification, "neither signedPayload (version 2) nor notification_type (version 1)")
        }
        guard let typeText = type.stringValue else {
            throw ServerError(.invalidJSON, "notification_type is not a string")
        }
        if let unified = object["unified_receipt"]?.objectValue {
            try Self.requireUnique(["latest_receipt", "latest_receipt_info", "pending_renewal_info"], in: unified)
        }
        guard let unified = object["unified_receipt"]?.objectValue, let latest = unified.text("latest_receipt") else {
            throw ServerError(.notificationRejected, "a version 1 notification needs unified_receipt.latest_receipt")
        }
        self = .version1(
            NotificationV1Call(
                notificationType: typeText, password: object.text("password"), latestReceipt: Array(latest.utf8),
                unverifiedHints: Self.hints(unified)))
    }

    /// `{"verified":false,"latest_receipt_info":…,"pending_renewal_info":…}`, or, when that is longer than
    /// ``LedgerLimits/maximumHintsLength``, `{"verified":false,"omitted_bytes":N}`: what no one signed is kept for
    /// people, bounded, and never acted on.
    static func hints(_ unified: JSONObject) -> String {
        var writer = JSONWriter(capacity: 1024)
        writer.beginObject()
        writer.field("verified", false)
        for key in ["latest_receipt_info", "pending_renewal_info"] {
            guard let value = unified[key] else { continue }
            writer.key(key)
            value.write(to: &writer)
        }
        writer.endObject()
        guard writer.bytes.count > LedgerLimits.maximumHintsLength else { return writer.string }
        var short = JSONWriter(capacity: 64)
        short.beginObject()
        short.field("verified", false)
        short.field("omitted_bytes", Int64(writer.bytes.count))
        short.endObject()
        return short.string
    }

    /// Refuses an object that gives any of `keys` more than once.
    /// - Throws: ``ServerError`` ``ServerError/Code/duplicateMember``.
    static func requireUnique(_ keys: [String], in object: JSONObject) throws(ServerError) {
        var seen = Set<String>()
        for member in object.members where keys.contains(member.key) {
            guard seen.insert(member.key).inserted else {
                throw ServerError(.duplicateMember, "\"\(member.key)\" is given more than once")
            }
        }
    }
}
