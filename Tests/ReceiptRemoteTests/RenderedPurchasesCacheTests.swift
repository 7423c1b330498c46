@_spi(Fuzzing) import ReceiptModel
@_spi(Fuzzing) import ReceiptRemote
import TestSupport
import Testing

/// The server keeps receipts' rendered `in_app` entries across answers (``RenderedPurchasesCache``): an answer
/// copied from them must be the bytes of an answer rendered afresh, and only the very same payload may use them.
struct RenderedPurchasesCacheTests {
    static let requestDate = ReceiptDate(clampingMillisecondsSince1970: 1_767_225_600_000)

    /// `bytes` decoded from a buffer of its own that starts `offset` bytes before them: the same payload at other
    /// offsets, as a receipt sent again arrives in another request.
    static func decoded(_ bytes: [UInt8], offset: Int) throws -> ReceiptPayload {
        let buffer = [UInt8](repeating: 0, count: offset) + bytes
        return try AppReceipt(berEncoded: buffer[offset...]).payload
    }

    @Test func aReceiptAnsweredAgainIsCopiedAsRenderedAfresh() throws {
        var names = ["valid-sha256", "valid-large-1200-purchases", "valid-sha1"]
        if SharedTestData.isAvailable { names += SharedTestData.receiptNames }
        var copied = 0
        for name in names {
            let bytes =
                name.hasPrefix("valid-")
                ? try RemoteTestData.fixture("\(name).receipt") : try SharedTestData.receiptBytes(name)
            guard let first = try? Self.decoded(bytes, offset: 0) else { continue }
            let again = try Self.decoded(bytes, offset: 7)
            for excludingOld in [false, true] {
                let positions = LatestReceiptInfo.positions(in: first, excludingOld: excludingOld)
                guard !positions.isEmpty else { continue }
                let renderings = RenderedPurchasesCache()
                let bodies = [first, again, again].map { payload in
                    VerifyReceiptBody.valid(
                        payload: payload, environment: "Sandbox", requestDate: Self.requestDate,
                        latest: .positions(positions), latestReceipt: nil, renderings: renderings)
                }
                let afresh = VerifyReceiptBody.valid(
                    payload: again, environment: "Sandbox", requestDate: Self.requestDate,
                    latest: .positions(positions), latestReceipt: nil)
                for body in bodies { #expect(body == afresh, "\(name)") }
                // Rendered once for the first answer, copied for the next two.
                let renderedOnce = LatestReceiptInfo.renderedOnce(again, latestCount: positions.count) != nil
                #expect(renderings.statistics.hits == (renderedOnce ? 2 : 0), "\(name)")
                if renderedOnce { copied += 1 }
            }
        }
        #expect(copied > 0, "no receipt at hand is rendered once")
    }

    /// A receipt of the same shape (every record at the same offset, the same first and last bytes) but other bytes
    /// in the middle finds the stored entry by its key, and must not use it.
    @Test func anotherPayloadOfTheSameShapeIsNotAnswered() throws {
        let bytes = try RemoteTestData.fixture("valid-large-1200-purchases.receipt")
        let original = try Self.decoded(bytes, offset: 0)
        let middle = try #require(original.inAppPurchases.dropFirst(600).first).encoded
        let productID = Array("org.example.receiptforge".utf8)
        let start = try #require(
            (middle.startIndex...(middle.endIndex - productID.count)).first {
                bytes[$0..<($0 + productID.count)].elementsEqual(productID)
            })
        var changed = bytes
        changed[start] = UInt8(ascii: "p")
        let other = try Self.decoded(changed, offset: 0)
        #expect(original.encoded.count == other.encoded.count)

        let renderings = RenderedPurchasesCache()
        renderings.insert(RenderedPurchases(original.inAppPurchases), for: original)
        #expect(renderings.rendered(for: other) == nil)
        #expect(renderings.rendered(for: try Self.decoded(bytes, offset: 3)) != nil)
        #expect(renderings.statistics.hits == 1)
        #expect(renderings.statistics.misses == 1)
    }

    @Test func theOldestEntriesLeaveAndLargeOnesAreNotKept() throws {
        let small = try Self.decoded(try RemoteTestData.fixture("valid-sha256.receipt"), offset: 0)
        let large = try Self.decoded(try RemoteTestData.fixture("valid-large-1200-purchases.receipt"), offset: 0)
        let one = RenderedPurchasesCache(capacity: 1)
        one.insert(RenderedPurchases(small.inAppPurchases), for: small)
        one.insert(RenderedPurchases(large.inAppPurchases), for: large)
        #expect(one.statistics.entries == 1)
        #expect(one.rendered(for: small) == nil)
        #expect(one.rendered(for: large) != nil)

        // The large receipt's entry would take more than a quarter of the bytes: not kept, and nothing evicted.
        let rendered = RenderedPurchases(large.inAppPurchases)
        let bounded = RenderedPurchasesCache(maximumBytes: 4 * (large.encoded.count + rendered.byteCount) - 1)
        bounded.insert(RenderedPurchases(small.inAppPurchases), for: small)
        bounded.insert(rendered, for: large)
        #expect(bounded.statistics.entries == 1)
        #expect(bounded.rendered(for: small) != nil)
    }
}
