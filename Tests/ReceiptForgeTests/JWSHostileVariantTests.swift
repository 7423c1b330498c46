import Foundation
import ReceiptCrypto
import ReceiptForge
import ReceiptModel
import Testing

/// Each hostile JWS differs from the valid one made from the same payload in exactly the intended way.
@Suite struct JWSHostileVariantTests {
    static let trusted = ["test-jws-leaf", "test-jws-intermediate", "test-jws-root"]

    /// What a variant's header must say and whose key must make its ES256 signature.
    struct Shape {
        var algorithm = "ES256"
        var keyID: String? = nil
        var certificates: [String]? = trusted
        /// The certificate whose key the ES256 signature verifies with.
        var signer: String? = "test-jws-leaf"
    }

    static func shape(_ variant: JWSHostileVariant) -> Shape {
        switch variant {
        case .algorithmNone: Shape(algorithm: "none", signer: nil)
        case .hs256KeyedWithPublicKey: Shape(algorithm: "HS256", signer: nil)
        case .rs256:
            Shape(algorithm: "RS256", certificates: ["test-leaf", "test-intermediate", "test-root"], signer: nil)
        case .tamperedPayload, .twoSegments, .signatureNotBase64URL: Shape()
        case .swappedLeaf: Shape(certificates: ["test-jws-leaf-other-key", trusted[1], trusted[2]])
        case .reorderedCertificates: Shape(certificates: [trusted[1], trusted[0], trusted[2]])
        case .rootBeforeIntermediate: Shape(certificates: [trusted[0], trusted[2], trusted[1]])
        case .leafWithoutMarker:
            Shape(certificates: ["test-jws-leaf-no-marker", trusted[1], trusted[2]], signer: "test-jws-leaf-no-marker")
        case .intermediateWithoutMarker:
            Shape(
                certificates: [
                    "test-jws-leaf-under-unmarked-intermediate", "test-jws-intermediate-no-marker", trusted[2],
                ],
                signer: "test-jws-leaf-under-unmarked-intermediate")
        case .expiredLeaf:
            Shape(certificates: ["test-jws-leaf-expired", trusted[1], trusted[2]], signer: "test-jws-leaf-expired")
        case .wrongRoot:
            Shape(
                certificates: ["other-jws-leaf", "other-jws-intermediate", "other-jws-root"], signer: "other-jws-leaf")
        case .xcodeSigned:
            Shape(keyID: "Apple_Xcode_Key", certificates: ["xcode-storekit-testing"], signer: "xcode-storekit-testing")
        case .noCertificates: Shape(certificates: nil)
        case .twoCertificates: Shape(certificates: [trusted[0], trusted[1]])
        }
    }

    static let wellFormed = JWSHostileVariant.allCases.filter { $0 != .twoSegments && $0 != .signatureNotBase64URL }

    @Test(arguments: wellFormed)
    func theHeaderChangesOnlyAsTheVariantSays(variant: JWSHostileVariant) throws {
        let description = try JWSFixtures.baseTransaction()
        let valid = try DecodedJWS(JWSFixtures.minter.mint(description))
        let hostile = try DecodedJWS(JWSFixtures.minter.mint(description, variant: variant))
        let shape = Self.shape(variant)
        #expect(hostile.algorithm == shape.algorithm)
        #expect(hostile.keyID == shape.keyID)
        #expect(try hostile.certificates == shape.certificates.map { try $0.map(JWSFixtures.certificateDER) })
        var expectedKeys: Set<String> = ["alg"]
        if shape.keyID != nil { expectedKeys.insert("kid") }
        if shape.certificates != nil { expectedKeys.insert("x5c") }
        #expect(Set(hostile.header.keys) == expectedKeys)
        if variant == .tamperedPayload {
            #expect(hostile.headerBytes == valid.headerBytes)
        } else {
            #expect(hostile.payloadBytes == valid.payloadBytes)
        }
    }

    @Test(arguments: wellFormed.filter { shape($0).signer != nil && $0 != .tamperedPayload })
    func theES256SignatureIsGenuineForItsSigningInput(variant: JWSHostileVariant) throws {
        let hostile = try DecodedJWS(JWSFixtures.minter.mint(JWSFixtures.baseTransaction(), variant: variant))
        let signer = try #require(Self.shape(variant).signer)
        #expect(hostile.signature.count == 64)
        #expect(
            try JWSFixtures.publicKey(signer).verifyES256(
                signature: hostile.signature[...], message: hostile.signingInput[...]))
    }

    @Test func theSwappedLeafIsNotTheSigner() throws {
        let hostile = try DecodedJWS(JWSFixtures.minter.mint(JWSFixtures.baseTransaction(), variant: .swappedLeaf))
        let embedded = try Certificate(derEncoded: #require(hostile.certificates?.first)[...])
        #expect(
            !(try embedded.publicKey.verifyES256(signature: hostile.signature[...], message: hostile.signingInput[...]))
        )
    }

    /// One payload byte differs, the JSON still decodes, and the signature covers the original payload.
    @Test func theTamperedPayloadDiffersInOneByteAfterSigning() throws {
        let description = try JWSFixtures.baseTransaction()
        let valid = try DecodedJWS(JWSFixtures.minter.mint(description))
        let hostile = try DecodedJWS(JWSFixtures.minter.mint(description, variant: .tamperedPayload))
        #expect(hostile.payloadBytes.count == valid.payloadBytes.count)
        #expect(zip(hostile.payloadBytes, valid.payloadBytes).filter { $0 != $1 }.count == 1)
        #expect(throws: Never.self) { try JSONSerialization.jsonObject(with: Data(hostile.payloadBytes)) }
        let key = try JWSFixtures.publicKey("test-jws-leaf")
        #expect(!(try key.verifyES256(signature: hostile.signature[...], message: hostile.signingInput[...])))
        let original = Array("\(hostile.segments[0]).\(valid.segments[1])".utf8)
        #expect(try key.verifyES256(signature: hostile.signature[...], message: original[...]))
    }

    @Test func algNoneHasAnEmptySignatureSegment() throws {
        let text = try JWSFixtures.minter.mint(JWSFixtures.baseTransaction(), variant: .algorithmNone)
        #expect(text.hasSuffix("."))
        #expect(try DecodedJWS(text).signature.isEmpty)
    }

    @Test func hs256IsKeyedWithTheLeafsSubjectPublicKeyInfo() throws {
        let hostile = try DecodedJWS(
            JWSFixtures.minter.mint(JWSFixtures.baseTransaction(), variant: .hs256KeyedWithPublicKey))
        let leaf = try Certificate(derEncoded: #require(hostile.certificates?.first)[...])
        let spki = try PrivateKey(pem: Fixtures.pki.privateKeyPEM(named: "test-jws-leaf")).subjectPublicKeyInfo()
        // The key an attacker has: the public key exactly as the x5c leaf carries it.
        #expect(leaf.derEncoded.contains(spki))
        let tag = try PrivateKey(hmacSecret: spki).signHS256(message: hostile.signingInput[...])
        #expect(hostile.signature == tag)
    }

    @Test func rs256IsAGenuineRSASignatureByTheEmbeddedLeaf() throws {
        let hostile = try DecodedJWS(JWSFixtures.minter.mint(JWSFixtures.baseTransaction(), variant: .rs256))
        let leaf = try Certificate(derEncoded: #require(hostile.certificates?.first)[...])
        #expect(hostile.signature.count == 256)
        let digest = try DigestAlgorithm.sha256.hash(hostile.signingInput[...])
        #expect(
            try leaf.publicKey.verifyRSAPKCS1(signature: hostile.signature[...], digest: digest, algorithm: .sha256))
    }

    @Test func malformedVariantsAreRefusedByTheDecoder() throws {
        let description = try JWSFixtures.baseTransaction()
        let valid = try DecodedJWS(JWSFixtures.minter.mint(description))
        let twoSegments = try JWSFixtures.minter.mint(description, variant: .twoSegments)
        #expect(twoSegments == "\(valid.segments[0]).\(valid.segments[1])")
        let notBase64URL = try JWSFixtures.minter.mint(description, variant: .signatureNotBase64URL)
        let parts = notBase64URL.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        #expect(parts.count == 3)
        #expect(parts[0] == valid.segments[0] && parts[1] == valid.segments[1])
        #expect(parts[2].hasSuffix("=="))
        let signature = try #require(Data(base64Encoded: parts[2]))
        #expect(signature.count == 64)
        #expect(
            try JWSFixtures.publicKey("test-jws-leaf").verifyES256(
                signature: [UInt8](signature)[...], message: Array("\(parts[0]).\(parts[1])".utf8)[...]))
        for text in [twoSegments, notBase64URL] {
            #expect(throws: JWSError.self) { try CompactJWS(text) }
        }
    }
}
