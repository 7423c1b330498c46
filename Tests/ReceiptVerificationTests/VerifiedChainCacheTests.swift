import Foundation
import ReceiptCrypto
import TestSupport
import Testing

@testable import ReceiptVerification

/// The cache's own rules, below the verifier: a hit needs every byte, same-hash strangers are not stored
/// (so they cannot evict), and an oversized identity is verified but never remembered.
@Suite("VerifiedChainCache")
struct VerifiedChainCacheTests {
    static func chain() throws -> VerifiedChain {
        let file = VerificationTestData.certsDirectory.appendingPathComponent("test-leaf.pem")
        let leaf = try #require(try Certificate.certificates(fromFileContents: SharedTestData.bytes(at: file)).first)
        return VerifiedChain(
            signerKey: leaf.publicKey, leafNotBefore: 0, leafNotAfter: 100, windowStart: 0, windowEnd: 100,
            subjects: [leaf.subject], anchoredAtXcode: false)
    }

    @Test func sameHashDifferentBytesNeitherHitsNorEvicts() throws {
        let cache = VerifiedChainCache(capacity: 4)
        let stored = [UInt8](repeating: 7, count: 200)
        var stranger = stored
        stranger[0] = 8  // same length, same last 32 bytes: the same hash, other bytes
        let storedKey = VerifiedChainCache.Key(parts: [stored[...]])
        let strangerKey = VerifiedChainCache.Key(parts: [stranger[...]])
        #expect(storedKey.hash == strangerKey.hash)

        cache.insert(storedKey, try Self.chain())
        #expect(cache.lookup(strangerKey, at: 50) == nil)
        cache.insert(strangerKey, try Self.chain())
        #expect(cache.lookup(strangerKey, at: 50) == nil)
        #expect(cache.lookup(storedKey, at: 50) != nil)
        #expect(cache.statistics.entries == 1)
    }

    @Test func anOversizedIdentityIsNotStored() throws {
        let cache = VerifiedChainCache(capacity: 4)
        let large = [UInt8](repeating: 1, count: VerifiedChainCache.maximumStoredBytes + 1)
        cache.insert(VerifiedChainCache.Key(parts: [large[...]]), try Self.chain())
        #expect(cache.statistics.entries == 0)
        let small = [UInt8](repeating: 1, count: 64)
        cache.insert(VerifiedChainCache.Key(parts: [small[...]]), try Self.chain())
        #expect(cache.statistics.entries == 1)
    }

    @Test func partsAreComparedOneByOne() throws {
        // The same bytes split differently are different identities (each part's length is compared).
        let cache = VerifiedChainCache(capacity: 4)
        let bytes = [UInt8](0..<64)
        cache.insert(VerifiedChainCache.Key(parts: [bytes[0..<32], bytes[32...]]), try Self.chain())
        #expect(cache.lookup(VerifiedChainCache.Key(parts: [bytes[0..<31], bytes[31...]]), at: 50) == nil)
        #expect(cache.lookup(VerifiedChainCache.Key(parts: [bytes[0..<32], bytes[32...]]), at: 50) != nil)
    }
}
