import ReceiptCrypto
import TestSupport
import Testing

/// ``CryptoLibrary/prepare()`` runs beside whatever else uses OpenSSL (in `verify-local`, while the arguments are
/// parsed, then the roots are read): it must change no result, whichever comes first.
@Suite("CryptoLibrary")
struct CryptoLibraryTests {
    /// SHA-256 of "abc" (FIPS 180-2, appendix B.1).
    static let abcDigest: [UInt8] = [
        0xBA, 0x78, 0x16, 0xBF, 0x8F, 0x01, 0xCF, 0xEA, 0x41, 0x41, 0x40, 0xDE, 0x5D, 0xAE, 0x22, 0x23,
        0xB0, 0x03, 0x61, 0xA3, 0x96, 0x17, 0x7A, 0x9C, 0xB4, 0x10, 0xFF, 0x61, 0xF2, 0x00, 0x15, 0xAD,
    ]

    @Test func preparingBesideCertificatesAndDigestsChangesNothing() async throws {
        let expected = try CryptoTestData.testPKI("test-root")
        let fingerprint = expected.sha256FingerprintHex
        let results = try await withThrowingTaskGroup(of: (String, [UInt8])?.self) { group in
            for round in 0..<16 {
                if round.isMultiple(of: 2) {
                    group.addTask {
                        #expect(CryptoLibrary.prepare(), "OpenSSL made no decoder for an RSA SubjectPublicKeyInfo")
                        return nil
                    }
                } else {
                    group.addTask {
                        let certificate = try CryptoTestData.testPKI("test-root")
                        let digest = try DigestAlgorithm.sha256.hash(Array("abc".utf8)[...])
                        return (certificate.sha256FingerprintHex, digest)
                    }
                }
            }
            var results: [(String, [UInt8])] = []
            for try await result in group { if let result { results.append(result) } }
            return results
        }
        #expect(results.count == 8)
        for (seen, digest) in results {
            #expect(seen == fingerprint)
            #expect(digest == Self.abcDigest)
        }
        // And again after it, on this task.
        #expect(CryptoLibrary.prepare())
        #expect(try CryptoTestData.testPKI("test-root").sha256FingerprintHex == fingerprint)
    }
}
