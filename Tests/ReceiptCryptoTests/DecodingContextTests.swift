@_spi(Fuzzing) import BER
import COpenSSL
import Foundation
import Synchronization
import TestSupport
import Testing

@testable import ReceiptCrypto

/// Certificates and keys are decoded in a library context per thread (``DecodingContext``), so that two threads
/// never contend on one context's decoder lookup: each thread must keep its own, and what was decoded in different
/// contexts must still work together.
@Suite("DecodingContext")
struct DecodingContextTests {
    /// A thread's context, read twice, as addresses (a pointer is not `Sendable`).
    static func contextReadTwice() -> (first: Int, second: Int) {
        (Int(bitPattern: DecodingContext.current), Int(bitPattern: DecodingContext.current))
    }

    /// In FIPS mode every thread keeps the default context.
    static let isFIPS = EVP_default_properties_is_fips_enabled(nil) == 1

    @Test(.disabled(if: isFIPS, "in FIPS mode every thread keeps the default context"))
    func eachThreadKeepsAContextOfItsOwn() async throws {
        let before = DecodingContext.nextSlot.load(ordering: .relaxed)
        let one = try await OwnThread.run { Self.contextReadTwice() }
        let other = try await OwnThread.run { Self.contextReadTwice() }
        let taken = DecodingContext.nextSlot.load(ordering: .relaxed) &- before
        #expect(one.first != 0 && one.first == one.second)
        #expect(other.first != 0 && other.first == other.second)
        // Beyond `limit` threads share contexts in turn: distinct unless that many others took a slot meanwhile.
        if taken < DecodingContext.limit { #expect(one.first != other.first) }
    }

    @Test func certificatesDecodedOnDifferentThreadsVerifyTogether() async throws {
        let root = try await OwnThread.run { try CryptoTestData.testPKI("test-root") }
        let intermediate = try await OwnThread.run { try CryptoTestData.testPKI("test-intermediate") }
        let leaf = try await OwnThread.run { try CryptoTestData.testPKI("test-leaf") }
        #expect(intermediate.isSigned(by: root))
        #expect(leaf.isSigned(by: intermediate))
        #expect(!leaf.isSigned(by: root))
        let result = try ChainVerifier.verify(leaf: leaf, intermediates: [intermediate], anchors: [root], at: nil)
        #expect(result.failure == nil)
        #expect(result.chain.map(\.sha256Fingerprint) == [leaf, intermediate, root].map(\.sha256Fingerprint))
    }

    @Test(.disabled(if: isFIPS, "in FIPS mode every thread keeps the default context"))
    func keysDecodedOnDifferentThreadsLiveInDifferentContexts() async throws {
        let one = try await OwnThread.run { try CryptoTestData.testPKI("test-leaf") }
        let other = try await OwnThread.run { try CryptoTestData.testPKI("test-leaf") }
        let providers = [one, other].map { Int(bitPattern: EVP_PKEY_get0_provider($0.publicKey.pointer)) }
        #expect(providers[0] != 0 && providers[0] != providers[1])
        #expect(one.publicKey.libraryContext != nil)
        #expect(one.publicKey.libraryContext != other.publicKey.libraryContext)
    }

    /// A key's checks are set up in the context it was decoded in (anywhere else OpenSSL would first copy it), and
    /// check signatures on any thread.
    @Test func aKeyChecksSignaturesInTheContextItWasDecodedIn() async throws {
        let leaf = try await OwnThread.run { try CryptoTestData.testPKI("test-leaf") }
        let jwsLeaf = try await OwnThread.run { try CryptoTestData.testPKI("test-jws-leaf") }
        for (key, scheme) in [(leaf.publicKey, PublicKey.Scheme.rsaPKCS1(.sha256)), (jwsLeaf.publicKey, .sha256ECDSA)] {
            let context = try key.makeVerifyContext(scheme)
            defer { EVP_PKEY_CTX_free(context) }
            #expect(EVP_PKEY_CTX_get0_libctx(context) == key.libraryContext)
        }

        let keyFile = SharedTestData.packageRoot.appendingPathComponent("certs/test-only-keys/test-leaf.key.pem")
        let key = try PrivateKey(pem: String(decoding: SharedTestData.bytes(at: keyFile), as: UTF8.self))
        let digest = try DigestAlgorithm.sha256.hash(Array("a receipt".utf8)[...])
        let signature = try key.signRSAPKCS1(digest: digest, algorithm: .sha256)
        for _ in 0..<2 {  // the second check reuses the pooled verification context
            #expect(try leaf.publicKey.verifyRSAPKCS1(signature: signature[...], digest: digest, algorithm: .sha256))
        }
        var altered = digest
        altered[0] ^= 1
        #expect(try !leaf.publicKey.verifyRSAPKCS1(signature: signature[...], digest: altered, algorithm: .sha256))
    }

    /// A certificate whose extensions OpenSSL marks invalid (basicConstraints twice) decodes in the thread's
    /// context and is refused after, as in the default one.
    @Test func refusesACertificateWithARepeatedExtension() throws {
        let root = try CryptoTestData.testPKI("test-root")
        let repeated = try Self.repeatingBasicConstraints(in: root.derEncoded)
        #expect(repeated.count > root.derEncoded.count)
        expectCryptoError(.invalidCertificate) { _ = try Certificate(derEncoded: repeated[...]) }
    }

    /// `certificate` with its basicConstraints extension (2.5.29.19) listed twice; the signature no longer
    /// matches, which decoding does not check.
    static func repeatingBasicConstraints(in certificate: [UInt8]) throws -> [UInt8] {
        let basicConstraints: [UInt8] = [0x06, 0x03, 0x55, 0x1D, 0x13]
        var outer = BERReader(certificate[...])
        var parts = try outer.read(expecting: .sequence).children()
        let tbs = try parts.read(expecting: .sequence)
        var writer = DERWriter()
        var found = false
        writer.sequence { certificate in
            certificate.sequence { fields in
                var reader = (try? tbs.children()) ?? BERReader([][...])
                while let field = try? reader.next() {
                    guard field.tag == BERTag(.contextSpecific, number: 3, constructed: true),
                        var wrapper = try? field.children(), let list = try? wrapper.read(expecting: .sequence),
                        var extensions = try? list.children()
                    else {
                        fields.encoded(field.encoded)
                        continue
                    }
                    fields.contextSpecific(3) { explicit in
                        explicit.sequence { out in
                            while let item = try? extensions.next() {
                                out.encoded(item.encoded)
                                if item.content.starts(with: basicConstraints) {
                                    out.encoded(item.encoded)
                                    found = true
                                }
                            }
                        }
                    }
                }
            }
            while let rest = try? parts.next() { certificate.encoded(rest.encoded) }
        }
        try #require(found, "the certificate has no basicConstraints extension")
        return writer.bytes
    }
}
