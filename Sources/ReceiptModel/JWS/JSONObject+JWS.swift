extension JSONObject {
    /// A JWS date member: milliseconds since 1970 as a JSON number. Xcode writes fractions
    /// (`1697679936049.7297`); the fraction is dropped. `nil` when absent, not a number, or not representable.
    public func milliseconds(_ key: String) -> ReceiptDate? {
        guard case .number(let text)? = self[key] else { return nil }
        let whole = text.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        guard !whole.contains(where: { $0 == "e" || $0 == "E" }), let value = Int64(whole) else { return nil }
        return ReceiptDate(millisecondsSince1970: value)
    }

    /// A JSON integer member (`appAppleId`, `autoRenewStatus`, `quantity`); `nil` when absent or not an integer.
    public func integer(_ key: String) -> Int64? { self[key]?.integerValue }

    /// A JSON Boolean member; `nil` when absent or not a Boolean.
    public func boolean(_ key: String) -> Bool? { self[key]?.boolValue }
}
