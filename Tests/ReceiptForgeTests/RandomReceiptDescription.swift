import ReceiptForge
import TestSupport

/// Random but replayable receipt descriptions for the round-trip property.
///
/// Covers what the format allows: every field present or absent, strings with non-ASCII text,
/// every date form Apple writes (Z, ±hhmm, ±hh:mm, fractions, empty), integers across the 64-bit
/// range, raw bytes of any length, and undocumented attributes at both levels.
enum RandomReceiptDescription {
    static let undocumentedTopLevelTypes: [Int64] = [6, 7, 8, 9, 11, 13, 14, 20, 25, 26, 1000]
    static let undocumentedInAppTypes: [Int64] = [1709, 1710, 1714, 1715, 1716, 1717, 1718, 1720, 1722, 1800]

    static func make(using rng: inout SplitMix64, maximumPurchases: Int = 6) -> ReceiptDescription {
        var receipt = ReceiptDescription(
            receiptType: maybe(&rng) { pick(["Production", "ProductionSandbox", "Xcode", "ProductionVPP"], &$0) },
            appItemID: maybe(&rng) { integer(&$0) },
            bundleID: maybe(&rng) { text(&$0, prefix: "org.example.") },
            applicationVersion: maybe(&rng) { "\($0.next() % 20).\($0.next() % 100).\($0.next() % 10)" },
            opaqueValue: maybe(&rng) { ByteString(bytes(&$0, count: Int($0.next() % 24))) },
            sha1Hash: maybe(&rng) { ByteString(bytes(&$0, count: 20)) },
            ageRating: maybe(&rng) { pick(["4+", "9+", "12+", "17+"], &$0) },
            creationDate: maybe(&rng) { date(&$0, allowEmpty: false) },
            downloadID: maybe(&rng) { integer(&$0) },
            versionExternalIdentifier: maybe(&rng) { integer(&$0) },
            originalPurchaseDate: maybe(&rng) { date(&$0, allowEmpty: true) },
            originalApplicationVersion: maybe(&rng) { text(&$0, prefix: "") },
            expirationDate: maybe(&rng) { date(&$0, allowEmpty: true) }
        )
        let purchaseCount = Int(rng.next() % UInt64(maximumPurchases + 1))
        for _ in 0..<purchaseCount {
            receipt.inAppPurchases.append(purchase(&rng))
        }
        receipt.extraAttributes = extras(&rng, types: undocumentedTopLevelTypes)
        return receipt
    }

    static func purchase(_ rng: inout SplitMix64) -> InAppPurchaseDescription {
        var purchase = InAppPurchaseDescription(
            quantity: maybe(&rng) { Int64($0.next() % 10) },
            productID: maybe(&rng) { text(&$0, prefix: "product.") },
            transactionID: maybe(&rng) { String($0.next() % 10_000_000_000_000_000) },
            purchaseDate: maybe(&rng) { date(&$0, allowEmpty: false) },
            originalTransactionID: maybe(&rng) { String($0.next() % 10_000_000_000_000_000) },
            originalPurchaseDate: maybe(&rng) { date(&$0, allowEmpty: false) },
            productType: maybe(&rng) { Int64($0.next() % 4) },
            expiresDate: maybe(&rng) { date(&$0, allowEmpty: true) },
            webOrderLineItemID: maybe(&rng) { integer(&$0) },
            cancellationDate: maybe(&rng) { date(&$0, allowEmpty: true) },
            isTrialPeriod: maybe(&rng) { $0.next() % 2 == 0 },
            isInIntroOfferPeriod: maybe(&rng) { $0.next() % 2 == 0 },
            promotionalOfferID: maybe(&rng) { text(&$0, prefix: "offer-") }
        )
        purchase.extraAttributes = extras(&rng, types: undocumentedInAppTypes)
        return purchase
    }

    private static func maybe<T>(_ rng: inout SplitMix64, _ make: (inout SplitMix64) -> T) -> T? {
        rng.next() % 5 == 0 ? nil : make(&rng)
    }

    private static func pick<T>(_ choices: [T], _ rng: inout SplitMix64) -> T {
        choices[Int(rng.next() % UInt64(choices.count))]
    }

    private static func integer(_ rng: inout SplitMix64) -> Int64 {
        // Mostly small values, sometimes anything in the 64-bit range (web order ids need it).
        let raw = Int64(bitPattern: rng.next())
        switch rng.next() % 4 {
        case 0: return raw
        case 1: return raw >> 33
        case 2: return abs(raw >> 50)
        default: return Int64(rng.next() % 300)
        }
    }

    private static func bytes(_ rng: inout SplitMix64, count: Int) -> [UInt8] {
        (0..<count).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
    }

    private static let alphabet = Array("abcdefghijklmnopqrstuvwxyz0123456789._-éü☃") + ["日", "本"]

    /// Non-empty text: an empty string reads back as absent, by the format's convention.
    private static func text(_ rng: inout SplitMix64, prefix: String) -> String {
        let length = 1 + Int(rng.next() % 40)
        return prefix + String((0..<length).map { _ in alphabet[Int(rng.next() % UInt64(alphabet.count))] })
    }

    private static func date(_ rng: inout SplitMix64, allowEmpty: Bool) -> String {
        if allowEmpty && rng.next() % 6 == 0 { return "" }
        let seconds = 946_684_800 + Int64(rng.next() % 1_500_000_000)  // 2000 … 2047
        let base = RFC3339.format(secondsSince1970: seconds)
        let withoutZ = String(base.dropLast())
        switch rng.next() % 5 {
        case 0: return "\(withoutZ).\(100 + rng.next() % 900)Z"
        case 1: return "\(withoutZ)+0100"
        case 2: return "\(withoutZ)-07:00"
        case 3: return "\(withoutZ)+05:30"
        default: return base
        }
    }

    private static func extras(_ rng: inout SplitMix64, types: [Int64]) -> [RawAttributeDescription] {
        let count = Int(rng.next() % 3)
        return (0..<count).map { _ in
            RawAttributeDescription(
                type: pick(types, &rng), version: Int64(rng.next() % 3),
                value: bytes(&rng, count: Int(rng.next() % 12)))
        }
    }
}
