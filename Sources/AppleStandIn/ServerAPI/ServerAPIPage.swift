/// One page of a paged App Store Server API answer, and the opaque token of the next.
///
/// The token is the prefix and the offset of the next item (`r20`): opaque to a client, which only sends back
/// what it was given, and checkable here.
struct ServerAPIPage<Item> {
    let items: ArraySlice<Item>
    let hasMore: Bool
    /// The token that continues after this page (also given on the last page, as Apple's `revision` is).
    let nextToken: String

    /// The page of `items` that `token` (`nil`: the first page) starts; `nil` when the token is not one this
    /// prefix made or points past the end.
    init?(_ items: [Item], token: String?, prefix: String, size: Int) {
        var start = 0
        if let token {
            guard token.hasPrefix(prefix), let offset = Int(token.dropFirst(prefix.count)),
                (0...items.count).contains(offset)
            else { return nil }
            start = offset
        }
        // At least one item per page, whatever the configuration says, so paging always ends.
        let size = max(1, size)
        let end = items.count - start > size ? start + size : items.count
        self.items = items[start..<end]
        hasMore = end < items.count
        nextToken = prefix + String(end)
    }
}
