/// Renders a decoded receipt as the `receipt` object of Apple's verifyReceipt response.
///
/// Same keys, same order, same value types and string formats as Apple's: dates three times
/// (`X` in `Etc/GMT`, `X_ms` as a string, `X_pst` in `America/Los_Angeles` with daylight saving),
/// `adam_id`, `app_item_id`, `download_id` and `version_external_identifier` as numbers, every
/// other value a string, absent attributes left out, `in_app` in receipt order.
///
/// Attributes Apple's JSON does not show (undocumented types, and documented ones Apple keeps to
/// itself such as the opaque value, the SHA-1 hash, the age rating and the product type) are
/// listed under the extra key `unknown_attributes`, as `{"type", "version", "value"}` with the
/// value in base64, so nothing in the receipt is dropped. Apple's clients ignore unknown keys.
public enum AppleReceiptJSON {
    /// Top-level attribute types Apple's `receipt` object renders.
    static let renderedTopLevel: Set<Int64> = [0, 1, 2, 3, 12, 15, 16, 17, 18, 19, 21]
    /// In-app attribute types Apple's `in_app` entries render.
    static let renderedInApp: Set<Int64> = [1701, 1702, 1703, 1704, 1705, 1706, 1708, 1711, 1712, 1713, 1719, 1721]

    /// The `receipt` object as JSON text.
    /// - Parameter requestDate: rendered as `request_date*` when given (the time the request was
    ///   answered; a receipt does not contain it).
    public static func render(_ payload: ReceiptPayload, requestDate: ReceiptDate? = nil) -> [UInt8] {
        var writer = JSONWriter(capacity: 1024 + payload.inAppPurchases.count * 900)
        write(payload, requestDate: requestDate, to: &writer)
        return writer.bytes
    }

    /// Writes the `receipt` object as the next value of `writer`.
    public static func write(_ payload: ReceiptPayload, requestDate: ReceiptDate? = nil, to writer: inout JSONWriter) {
        writer.beginObject()
        if let value = payload.receiptTypeBytes { writer.field("receipt_type", utf8: value) }
        if let value = payload.appItemID {
            writer.field("adam_id", value)
            writer.field("app_item_id", value)
        }
        if let value = payload.bundleIDBytes { writer.field("bundle_id", utf8: value) }
        if let value = payload.applicationVersionBytes { writer.field("application_version", utf8: value) }
        if let value = payload.downloadID { writer.field("download_id", value) }
        if let value = payload.versionExternalIdentifier { writer.field("version_external_identifier", value) }
        writeDate("receipt_creation_date", payload.creationDate, to: &writer)
        writeDate("request_date", requestDate, to: &writer)
        writeDate("original_purchase_date", payload.originalPurchaseDate, to: &writer)
        if let value = payload.originalApplicationVersionBytes {
            writer.field("original_application_version", utf8: value)
        }
        writeDate("expiration_date", payload.expirationDate, to: &writer)
        writer.key("in_app")
        writer.beginArray()
        for purchase in payload.inAppPurchases { write(purchase, to: &writer) }
        writer.endArray()
        writeUnrendered(payload.attributes, rendered: renderedTopLevel, to: &writer)
        writer.endObject()
    }

    /// Writes one `in_app` entry.
    public static func write(_ purchase: InAppPurchase, to writer: inout JSONWriter) {
        writer.beginObject()
        if let value = purchase.quantity { writer.field("quantity", String(value)) }
        if let value = purchase.productIDBytes { writer.field("product_id", utf8: value) }
        if let value = purchase.transactionIDBytes { writer.field("transaction_id", utf8: value) }
        if let value = purchase.originalTransactionIDBytes { writer.field("original_transaction_id", utf8: value) }
        writeDate("purchase_date", purchase.purchaseDate, to: &writer)
        writeDate("original_purchase_date", purchase.originalPurchaseDate, to: &writer)
        writeDate("expires_date", purchase.expiresDate, to: &writer)
        writeDate("cancellation_date", purchase.cancellationDate, to: &writer)
        // Apple shows the web order line item id for subscription events; other products carry 0.
        if let value = purchase.webOrderLineItemID, value != 0 { writer.field("web_order_line_item_id", String(value)) }
        if let value = purchase.isTrialPeriod { writer.field("is_trial_period", value ? "true" : "false") }
        if let value = purchase.isInIntroOfferPeriod {
            writer.field("is_in_intro_offer_period", value ? "true" : "false")
        }
        if let value = purchase.promotionalOfferIDBytes { writer.field("promotional_offer_id", utf8: value) }
        writeUnrendered(purchase.attributes, rendered: renderedInApp, to: &writer)
        writer.endObject()
    }

    /// `name`, `name_ms` and `name_pst`, or nothing when the date is absent.
    static func writeDate(_ name: String, _ date: ReceiptDate?, to writer: inout JSONWriter) {
        guard let date else { return }
        writer.field(name, date.appleGMTString)
        writer.field(name + "_ms", String(date.millisecondsSince1970))
        writer.field(name + "_pst", date.applePacificString)
    }

    private static func writeUnrendered(_ attributes: [ReceiptAttribute], rendered: Set<Int64>, to writer: inout JSONWriter) {
        var opened = false
        for attribute in attributes where !rendered.contains(attribute.type) {
            if !opened {
                writer.key("unknown_attributes")
                writer.beginArray()
                opened = true
            }
            writer.beginObject()
            writer.field("type", attribute.type)
            writer.field("version", attribute.version)
            writer.field("value", Base64.encode(attribute.value))
            writer.endObject()
        }
        if opened { writer.endArray() }
    }
}
