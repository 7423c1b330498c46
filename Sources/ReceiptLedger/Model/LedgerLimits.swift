/// The shapes and lengths of what the ledger stores, checked before anything reaches a store: a value outside
/// them cannot be Apple's, and one such value must never fail a whole batch of other requests' writes (an 8 KB id
/// is refused here, not by PostgreSQL's index in the middle of a commit).
///
/// | value | accepted |
/// |---|---|
/// | transaction id, original transaction id, web order line item id | 1-64 ASCII letters, digits, `.`, `-`, `_` |
/// | product id, bundle id | 1-255 bytes of UTF-8 without control characters |
/// | environment, notification type and subtype, offer type names | up to 64 bytes, the same |
/// | `appAccountToken`, offer identifier | up to 256 bytes, the same |
/// | account | 1-256 bytes of UTF-8 without U+0000 (``LedgerEntry/isValidAccount(_:)``) |
/// | notification id | 1-128 bytes, the same as an identifier plus `:` |
/// | a V1 notification's unsigned hints | up to ``maximumHintsLength`` bytes of JSON |
/// | an event lease's owner (a replica's id) | 1-256 bytes of UTF-8 without control characters |
/// | an event delivery's error | cut to ``maximumEventErrorLength`` bytes, control characters made spaces |
public enum LedgerLimits {
    /// The longest transaction id, original transaction id or web order line item id, in bytes.
    public static let maximumIdentifierLength = 64
    /// The longest product id or bundle id, in UTF-8 bytes.
    package static let maximumProductIDLength = 255
    /// The longest environment, notification type or subtype, in UTF-8 bytes.
    public static let maximumNameLength = 64
    /// The longest `appAccountToken` or offer identifier, in UTF-8 bytes.
    package static let maximumTokenLength = 256
    /// The most a V1 notification's unsigned members take in the ledger, in bytes of JSON; larger ones are
    /// recorded as `{"verified":false,"omitted_bytes":N}`.
    public static let maximumHintsLength = 16 * 1024

    /// The longest error an event's delivery keeps (``LedgerEvent/lastError``), in UTF-8 bytes.
    package static let maximumEventErrorLength = 1024
    /// The most events one ``LedgerStore/claimEvents(owner:now:leaseUntil:limit:)`` leases.
    package static let maximumEventClaim = 1000

    /// Whether `owner` names a replica that may lease events: 1-256 bytes of UTF-8 without control characters.
    package static func isLeaseOwner(_ owner: String) -> Bool {
        !owner.isEmpty && isText(owner, maximum: maximumTokenLength)
    }

    /// Whether a `settleAndClaimEvents` call by `owner` has anything to do: `false` for an owner outside the limits
    /// that only settles (it holds no lease, so its settlements are ignored).
    /// - Throws: ``LedgerError`` `ledger.invalid_entry` when such an owner claims (`limit` > 0).
    package static func admitsLeaseOwner(_ owner: String, claiming limit: Int) throws(LedgerError) -> Bool {
        if isLeaseOwner(owner) { return true }
        guard limit <= 0 else {
            throw LedgerError(.invalidEntry, "a lease owner is 1-256 bytes of UTF-8 without control characters")
        }
        return false
    }

    /// A delivery's error as an event keeps it: control characters (and U+0000, which PostgreSQL's text cannot
    /// hold) made spaces, cut at a character boundary to ``maximumEventErrorLength`` bytes.
    package static func eventError(_ text: String) -> String {
        var kept = ""
        var length = 0
        for scalar in text.unicodeScalars {
            let clean = scalar.value < 0x20 || scalar.value == 0x7F ? " " : scalar
            length += String(clean).utf8.count
            guard length <= maximumEventErrorLength else { break }
            kept.unicodeScalars.append(clean)
        }
        return kept
    }

    /// Whether `text` is a transaction id, original transaction id or web order line item id the ledger takes.
    ///
    /// Checked for every transaction of every verification (187 of them for a large receipt): over the string's
    /// contiguous UTF-8 when it has it (native strings do), byte by byte without a call per byte.
    public static func isIdentifier(_ text: String) -> Bool {
        !text.isEmpty && everyByte(of: text, maximum: maximumIdentifierLength, isIdentifierByte)
    }

    /// Whether `text` (a substring, a path parameter) is an identifier, as a string would be.
    public static func isIdentifier(_ text: Substring) -> Bool { isIdentifier(String(text)) }

    /// Whether `text` is a notification id the ledger takes (V2's UUID, V1's `v1:` digest).
    package static func isNotificationID(_ text: String) -> Bool {
        !text.isEmpty
            && everyByte(of: text, maximum: LedgerNotification.maximumIDLength) {
                isIdentifierByte($0) || $0 == UInt8(ascii: ":")
            }
    }

    /// Whether `text` is at most `maximum` bytes of UTF-8 without control characters (U+0000-U+001F, U+007F).
    public static func isText(_ text: String, maximum: Int) -> Bool {
        everyByte(of: text, maximum: maximum) { $0 >= 0x20 && $0 != 0x7F }
    }

    /// Whether `text` is at most `maximum` bytes of UTF-8, each of which `accepts`.
    @inline(__always)
    private static func everyByte(of text: String, maximum: Int, _ accepts: (UInt8) -> Bool) -> Bool {
        let utf8 = text.utf8
        let contiguous = utf8.withContiguousStorageIfAvailable { bytes in
            guard bytes.count <= maximum else { return false }
            for byte in bytes where !accepts(byte) { return false }
            return true
        }
        if let contiguous { return contiguous }
        return utf8.count <= maximum && utf8.allSatisfy(accepts)
    }

    /// Whether `text` is a bundle id the ledger takes for a notification: 1-255 bytes of UTF-8 without control
    /// characters. (A transaction's bundle id may be empty: the receipt did not name one.)
    package static func isBundleID(_ text: String) -> Bool {
        !text.isEmpty && isText(text, maximum: maximumProductIDLength)
    }

    /// `text` when ``isText(_:maximum:)`` accepts it, else `nil`.
    package static func text(_ text: String?, maximum: Int) -> String? {
        text.flatMap { isText($0, maximum: maximum) ? $0 : nil }
    }

    private static func isIdentifierByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "."), UInt8(ascii: "-"), UInt8(ascii: "_"):
            true
        default: false
        }
    }
}
