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

    static func fixture(_ name: String) throws -> ReceiptPayload {
        try decoded(try RemoteTestData.fixture("\(name).receipt"), offset: 0)
    }

    /// Renders payloads' entries through a cache, counting the renderings.
    final class Renderer {
        var count = 0
        @discardableResult
        func send(_ payload: ReceiptPayload, to renderings: RenderedPurchasesCache) -> RenderedPurchases {
            renderings.rendered(for: payload) {
                count += 1
                return RenderedPurchases(payload.inAppPurchases)
            }
        }
    }

    @Test func aReceiptAnsweredAgainIsCopiedAsRenderedAfresh() throws {
        var names = ["valid-sha256", "valid-large-1200-purchases", "valid-sha1"]
        if SharedTestData.isAvailable { names += SharedTestData.receiptNames }
        var copied = 0
        for name in names {
            let bytes =
                name.hasPrefix("valid-")
                ? try RemoteTestData.fixture("\(name).receipt") : try SharedTestData.receiptBytes(name)
            // The real receipts include ones this decoder refuses (iOS 6): their answers are not this test's.
            guard let first = try? Self.decoded(bytes, offset: 0) else { continue }
            let again = try Self.decoded(bytes, offset: 7)
            // One cache for both shapes of latest_receipt_info: its entries do not depend on the selection.
            let renderings = RenderedPurchasesCache()
            for excludingOld in [false, true] {
                let positions = LatestReceiptInfo.positions(in: first, excludingOld: excludingOld)
                guard !positions.isEmpty else { continue }
                let bodies = [first, again, again].map { payload in
                    VerifyReceiptBody.valid(
                        payload: payload, environment: "Sandbox", requestDate: Self.requestDate,
                        latest: .positions(positions), latestReceipt: nil, renderings: renderings)
                }
                let afresh = VerifyReceiptBody.valid(
                    payload: again, environment: "Sandbox", requestDate: Self.requestDate,
                    latest: .positions(positions), latestReceipt: nil)
                for body in bodies { #expect(body == afresh, "\(name)") }
                if LatestReceiptInfo.renderedOnce(again, latestCount: positions.count) != nil { copied += 1 }
            }
            // Rendered for the first answer only: every later one is a copy.
            let statistics = renderings.statistics
            #expect(statistics.misses == min(1, statistics.hits + statistics.misses), "\(name)")
        }
        #expect(copied > 0, "no receipt at hand is rendered once")
    }

    /// A copy names the new decoding's purchases, at their own offsets: every entry is found for them, with the
    /// bytes rendering each alone writes.
    @Test func aCopyFindsEveryEntryOfTheNewDecoding() throws {
        let bytes = try RemoteTestData.fixture("valid-large-1200-purchases.receipt")
        let renderings = RenderedPurchasesCache()
        let renderer = Renderer()
        renderer.send(try Self.decoded(bytes, offset: 0), to: renderings)
        let again = try Self.decoded(bytes, offset: 5)
        let copied = renderer.send(again, to: renderings)
        #expect(renderer.count == 1)
        for purchase in again.inAppPurchases {
            let range = try #require(copied.entryRange(for: purchase))
            var alone = JSONWriter()
            AppleReceiptJSON.write(purchase, to: &alone)
            #expect(Array(copied.entries[range]) == alone.bytes)
        }
    }

    /// A receipt of the same shape (every record at the same offset, the same first and last bytes) but other bytes
    /// in the middle finds the stored entry by its key, and must not use it.
    @Test func anotherPayloadOfTheSameShapeIsRenderedNotCopied() throws {
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
        let renderer = Renderer()
        renderer.send(original, to: renderings)
        let rendered = renderer.send(other, to: renderings)
        #expect(renderer.count == 2)
        var written = JSONWriter()
        AppleReceiptJSON.write(other.inAppPurchases, reusing: rendered, to: &written)
        #expect(written.string.contains("prg.example.receiptforge"))
        // The other payload took the key's slot; the original, sent again, is rendered again.
        renderer.send(try Self.decoded(bytes, offset: 3), to: renderings)
        #expect(renderer.count == 3)
        // One slot under the key throughout, counted once.
        let alone = RenderedPurchasesCache()
        renderer.send(original, to: alone)
        #expect(renderings.statistics.hits == 0)
        #expect(renderings.statistics.entries == 1)
        #expect(renderings.statistics.bytes == alone.statistics.bytes)
    }

    /// The large fixture with the `letter`th letter of its last purchase's product id made a `Q`: a payload of its
    /// own, of the same size, under a key of its own (its last bytes differ).
    static func largeVariant(_ letter: Int) throws -> ReceiptPayload {
        let bytes = try RemoteTestData.fixture("valid-large-1200-purchases.receipt")
        let record = try #require(try Self.decoded(bytes, offset: 0).inAppPurchases.last).encoded
        let productID = Array("org.example.receiptforge".utf8)
        let start = try #require(
            (record.startIndex...(record.endIndex - productID.count)).first {
                bytes[$0..<($0 + productID.count)].elementsEqual(productID)
            })
        var changed = bytes
        changed[start + letter] = UInt8(ascii: "Q")
        return try Self.decoded(changed, offset: 0)
    }

    @Test func entriesLeaveByCountAndByBytesAndLargeOnesAreNotKept() throws {
        let variants = try (0..<5).map(Self.largeVariant)
        let renderer = Renderer()

        let two = RenderedPurchasesCache(capacity: 2)
        for payload in variants { renderer.send(payload, to: two) }
        #expect(two.statistics.entries == 2)

        // By bytes: room for exactly four entries of this size, whatever the count allows.
        let one = RenderedPurchasesCache()
        renderer.send(variants[0], to: one)
        let cost = one.statistics.bytes
        #expect(cost > variants[0].encoded.count)
        let four = RenderedPurchasesCache(maximumBytes: 4 * cost)
        for payload in variants { renderer.send(payload, to: four) }
        #expect(four.statistics.entries == 4)
        #expect(four.statistics.bytes == 4 * cost)

        // A payload whose entry would take more than a quarter of the bytes is not kept, and evicts nothing.
        let small = try Self.fixture("valid-sha256")
        let bounded = RenderedPurchasesCache(maximumBytes: 4 * cost - 1)
        renderer.send(small, to: bounded)
        renderer.send(variants[0], to: bounded)
        #expect(bounded.statistics.entries == 1)
        let before = renderer.count
        renderer.send(small, to: bounded)
        #expect(renderer.count == before)

    }

    /// The clock hand passes over an entry used since it last came by: a receipt answered again and again stays
    /// while others come and go.
    @Test func anEntryInUseOutlastsTheOthers() throws {
        let kept = try Self.largeVariant(0)
        let others = try (1..<4).map(Self.largeVariant)
        let renderings = RenderedPurchasesCache(capacity: 2)
        let renderer = Renderer()
        renderer.send(kept, to: renderings)
        for other in others {
            renderer.send(other, to: renderings)
            renderer.send(kept, to: renderings)
        }
        #expect(renderer.count == 1 + others.count)
        #expect(renderings.statistics.hits == others.count)
    }
}
