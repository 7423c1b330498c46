extension JSONObject {
    /// A JWS date member: milliseconds since 1970 as a JSON number. Xcode writes fractions
    /// (`1697679936049.7297`); the fraction is dropped. `nil` when absent, not a number, or not representable.
    /// A number in exponent form (`1.7e12`) is not one Apple writes: `nil`, never truncated to its digits before
    /// the fraction.
    public func milliseconds(_ key: String) -> ReceiptDate? {
        guard case .number(let text)? = self[key], Self.isIntegerLiteral(text) else { return nil }
        let whole = text.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        guard let value = Int64(whole) else { return nil }
        return ReceiptDate(millisecondsSince1970: value)
    }

    /// The members Apple writes as JSON integers besides every `…Date`: they must be integers when present.
    package static let integerMembers: Set<String> = [
        "appAppleId", "quantity", "price", "autoRenewStatus", "expirationIntent", "revocationReason", "offerType",
        "status", "priceIncreaseStatus",
    ]

    /// The first member, here or in an object one level down (a notification's `data`, `summary`, …), that Apple
    /// writes as an integer (every `…Date` and ``integerMembers``) but that holds something else: a string, a
    /// Boolean, or a number in exponent form, which a reader would otherwise drop or truncate. `nil` when every
    /// one is an integer (Xcode's fractional milliseconds included) or `null`.
    package func nonIntegerMember(nested: Bool = true) -> String? {
        for member in members {
            if member.key.hasSuffix("Date") || Self.integerMembers.contains(member.key) {
                switch member.value {
                case .null: continue
                case .number(let text) where Self.isIntegerLiteral(text): continue
                default: return member.key
                }
            }
            if nested, case .object(let inner) = member.value, let found = inner.nonIntegerMember(nested: false) {
                return member.key + "." + found
            }
        }
        return nil
    }

    /// `-?digits`, optionally with a fraction of digits (Xcode's dates); no exponent.
    static func isIntegerLiteral(_ text: String) -> Bool {
        var digits = text.utf8[...]
        if digits.first == UInt8(ascii: "-") { digits = digits.dropFirst() }
        let parts = digits.split(separator: UInt8(ascii: "."), maxSplits: 1, omittingEmptySubsequences: false)
        return !parts.isEmpty
            && parts.allSatisfy { part in
                !part.isEmpty && part.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
            }
    }

    /// A JSON integer member (`appAppleId`, `autoRenewStatus`, `quantity`); `nil` when absent or not an integer.
    public func integer(_ key: String) -> Int64? { self[key]?.integerValue }

    /// A JSON Boolean member; `nil` when absent or not a Boolean.
    public func boolean(_ key: String) -> Bool? { self[key]?.boolValue }
}
