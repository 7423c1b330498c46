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
    /// The `receipt` object as JSON text.
    /// - Parameter requestDate: rendered as `request_date*` when given (the time the request was
    ///   answered; a receipt does not contain it).
    public static func render(_ payload: ReceiptPayload, requestDate: ReceiptDate? = nil) -> [UInt8] {
        var writer = JSONWriter(
            capacity: 1024 + reservation(entries: payload.inAppPurchases.count, recordBytes: payload.encoded.count))
        write(payload, requestDate: requestDate, to: &writer)
        return writer.bytes
    }

    /// About how many bytes one `in_app` entry takes (real ones: 700 to 1,150), for reserving buffers.
    package static let typicalEntrySize = 1100

    /// Bytes to reserve for `entries` rendered `in_app` entries whose records take `recordBytes` in the receipt:
    /// ``typicalEntrySize`` each, but never more than eight times the records' own size. The count comes from
    /// input, and a receipt packed with minimal 12-byte records (rendered as `{}`) would otherwise reserve
    /// 1,100 bytes for every two it writes. A buffer still grows past its reservation when it must.
    package static func reservation(entries: Int, recordBytes: Int) -> Int {
        let bound = max(0, recordBytes).multipliedReportingOverflow(by: 8)
        let typical = max(0, entries).multipliedReportingOverflow(by: typicalEntrySize)
        // 256 MiB at most, so a caller may add its own few kilobytes without overflow.
        return min(
            bound.overflow ? Int.max : bound.partialValue, typical.overflow ? Int.max : typical.partialValue,
            1 << 28)
    }

    /// Writes the `receipt` object as the next value of `writer`.
    /// - Parameter rendered: the payload's `in_app` entries already rendered (``RenderedPurchases``), to copy
    ///   instead of rendering them here.
    package static func write(
        _ payload: ReceiptPayload, requestDate: ReceiptDate? = nil, rendered: RenderedPurchases? = nil,
        to writer: inout JSONWriter
    ) {
        writer.beginObject()
        if let value = payload.receiptTypeBytes { writer.field("receipt_type" as StaticString, utf8: value) }
        if let value = payload.appItemID {
            writer.key("adam_id" as StaticString)
            writer.number(value)
            writer.key("app_item_id" as StaticString)
            writer.number(value)
        }
        if let value = payload.bundleIDBytes { writer.field("bundle_id" as StaticString, utf8: value) }
        if let value = payload.applicationVersionBytes {
            writer.field("application_version" as StaticString, utf8: value)
        }
        if let value = payload.downloadID {
            writer.key("download_id" as StaticString)
            writer.number(value)
        }
        if let value = payload.versionExternalIdentifier {
            writer.key("version_external_identifier" as StaticString)
            writer.number(value)
        }
        writeDate(
            payload.creationDate, "receipt_creation_date", "receipt_creation_date_ms", "receipt_creation_date_pst",
            to: &writer)
        writeDate(requestDate, "request_date", "request_date_ms", "request_date_pst", to: &writer)
        writeDate(
            payload.originalPurchaseDate, "original_purchase_date", "original_purchase_date_ms",
            "original_purchase_date_pst", to: &writer)
        if let value = payload.originalApplicationVersionBytes {
            writer.field("original_application_version" as StaticString, utf8: value)
        }
        writeDate(payload.expirationDate, "expiration_date", "expiration_date_ms", "expiration_date_pst", to: &writer)
        writer.key("in_app" as StaticString)
        write(payload.inAppPurchases, reusing: rendered, to: &writer)
        writeUnrendered(payload.encoded, rendered: AttributeSet.isRenderedTopLevel, to: &writer)
        writer.endObject()
    }

    /// Writes `purchases` as an array of `in_app` entries, copying those that `rendered` already holds.
    /// - Parameter positions: which purchases to write, in order (each an index of `purchases`); all when `nil`.
    package static func write(
        _ purchases: [InAppPurchase], at positions: [Int]? = nil, reusing rendered: RenderedPurchases?,
        to writer: inout JSONWriter
    ) {
        writer.beginArray()
        // Through the buffer: each purchase is read in place; an array's element read copies all its references.
        purchases.withUnsafeBufferPointer { purchases in
            func entry(_ purchase: Int) {
                precondition(purchases.indices.contains(purchase), "a position outside the purchases")
                if let rendered, let range = rendered.entryRange(for: purchases[purchase]) {
                    rendered.writeEntry(range, to: &writer)
                } else {
                    write(purchases[purchase], to: &writer)
                }
            }
            if let positions {
                for purchase in positions { entry(purchase) }
            } else {
                for purchase in purchases.indices { entry(purchase) }
            }
        }
        writer.endArray()
    }

    /// Writes one `in_app` entry.
    /// Inlined where it is called: a call would get a copy of the purchase (a retain and release of each of its
    /// slices), which costs more than writing most of its members.
    @inline(__always)
    @_spi(Fuzzing) public static func write(_ purchase: InAppPurchase, to writer: inout JSONWriter) {
        writer.beginObject()
        if let value = purchase.quantity { writeNumberString("quantity", value, to: &writer) }
        if let value = purchase.productIDBytes { writer.field("product_id" as StaticString, utf8: value) }
        if let value = purchase.transactionIDBytes { writer.field("transaction_id" as StaticString, utf8: value) }
        if let value = purchase.originalTransactionIDBytes {
            writer.field("original_transaction_id" as StaticString, utf8: value)
        }
        writeDate(purchase.purchaseDate, "purchase_date", "purchase_date_ms", "purchase_date_pst", to: &writer)
        writeDate(
            purchase.originalPurchaseDate, "original_purchase_date", "original_purchase_date_ms",
            "original_purchase_date_pst", to: &writer)
        writeDate(purchase.expiresDate, "expires_date", "expires_date_ms", "expires_date_pst", to: &writer)
        writeDate(
            purchase.cancellationDate, "cancellation_date", "cancellation_date_ms", "cancellation_date_pst",
            to: &writer)
        // Apple shows the web order line item id for subscription events; other products carry 0.
        if let value = purchase.webOrderLineItemID, value != 0 {
            writeNumberString("web_order_line_item_id", value, to: &writer)
        }
        if let value = purchase.isTrialPeriod { writeBooleanString("is_trial_period", value, to: &writer) }
        if let value = purchase.isInIntroOfferPeriod {
            writeBooleanString("is_in_intro_offer_period", value, to: &writer)
        }
        if let value = purchase.promotionalOfferIDBytes {
            writer.field("promotional_offer_id" as StaticString, utf8: value)
        }
        writeUnrendered(purchase.encoded, rendered: AttributeSet.isRenderedInApp, to: &writer)
        writer.endObject()
    }

    /// `name`, `name_ms` and `name_pst`, or nothing when the date is absent. Dates are most of a receipt's
    /// JSON: the three members are written in one append, from one conversion to UTC, or copied from the writer's
    /// last dates (``RecentDates``) when the date is one of them.
    package static func writeDate(
        _ date: ReceiptDate?, _ name: StaticString, _ milliseconds: StaticString, _ pacific: StaticString,
        to writer: inout JSONWriter
    ) {
        guard let date else { return }
        let rendered = writer.recentDates.rendered(date)
        let keys: Int = name.utf8CodeUnitCount + milliseconds.utf8CodeUnitCount + pacific.utf8CodeUnitCount
        // Per member: the key's two quotes and colon, the value's two quotes; two commas; the zone names; and the
        // values, each stored as a whole vector of 32 bytes (``RenderedDate/room``).
        let zones =
            (" Etc/GMT" as StaticString).utf8CodeUnitCount
            + (" America/Los_Angeles" as StaticString).utf8CodeUnitCount
        writer.members(capacity: keys + 3 * 5 + 2 + zones + RenderedDate.room) { chunk in
            chunk.putKey(name)
            chunk.put(UInt8(ascii: "\""))
            rendered.putUTC(to: &chunk)
            chunk.put(" Etc/GMT\",")
            chunk.putKey(milliseconds)
            chunk.put(UInt8(ascii: "\""))
            rendered.putMilliseconds(to: &chunk)
            chunk.put("\",")
            chunk.putKey(pacific)
            chunk.put(UInt8(ascii: "\""))
            rendered.putPacific(to: &chunk)
            chunk.put(" America/Los_Angeles\"")
        }
    }

    /// Apple writes these integers as strings: `"quantity": "1"`.
    private static func writeNumberString(_ name: StaticString, _ value: Int64, to writer: inout JSONWriter) {
        writer.members(capacity: name.utf8CodeUnitCount + 5 + 20) { chunk in
            chunk.putKey(name)
            chunk.put(UInt8(ascii: "\""))
            chunk.putDecimal(value)
            chunk.put(UInt8(ascii: "\""))
        }
    }

    /// Apple writes booleans as strings: `"is_trial_period": "false"`.
    private static func writeBooleanString(_ name: StaticString, _ value: Bool, to writer: inout JSONWriter) {
        writer.members(capacity: name.utf8CodeUnitCount + 5 + 5) { chunk in
            chunk.putKey(name)
            chunk.put(value ? "\"true\"" : "\"false\"")
        }
    }

    /// `unknown_attributes`, when the SET `encoded` (already validated by the decoder) holds attributes that
    /// `rendered` says Apple's JSON does not show. Walked in place: no list of attributes, no slice per attribute.
    /// Inlined with the walk, so that `rendered` is a direct call for each attribute rather than through a closure.
    @inline(__always)
    private static func writeUnrendered(
        _ encoded: ArraySlice<UInt8>, rendered: (Int64) -> Bool, to writer: inout JSONWriter
    ) {
        var opened = false
        try? AttributeWalker.forEachUnsafe(inSetContent: encoded, where: { !rendered($0) }) { type, version, value in
            if !opened {
                writer.key("unknown_attributes" as StaticString)
                writer.beginArray()
                opened = true
            }
            // {"type":N,"version":N,"value":"base64"}: the keys, two numbers of at most 20 bytes, the value. The
            // punctuation around the values goes in four pieces (about 1,500 such attributes in the 79 KB answer).
            writer.members(capacity: 34 + 2 * 20 + Base64.encodedCount(value.count)) { chunk in
                chunk.put(#"{"type":"#)
                chunk.putDecimal(type)
                chunk.put(#","version":"#)
                chunk.putDecimal(version)
                chunk.put(#","value":""#)
                chunk.putBase64(value)
                chunk.put(#""}"#)
            }
        }
        if opened { writer.endArray() }
    }

    /// Which attribute types Apple's JSON renders.
    enum AttributeSet {
        static func isRenderedTopLevel(_ type: Int64) -> Bool {
            switch type {
            case 0...3, 12, 15...19, 21: true
            default: false
            }
        }

        static func isRenderedInApp(_ type: Int64) -> Bool {
            switch type {
            case 1701...1706, 1708, 1711...1713, 1719, 1721: true
            default: false
            }
        }
    }
}
