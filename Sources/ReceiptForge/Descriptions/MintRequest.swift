@_spi(Fuzzing) import BER
public import Foundation
import ReceiptCrypto

/// A complete, committed recipe for one receipt: content, signing, hostile changes, output form and
/// the verdict it is meant to get. `fixtures/descriptions/NAME.json` files are these.
///
/// Certificates and keys are named by their test-PKI file names, so the same request minted against
/// the same `certs/` always gives the same bytes (RSA PKCS#1 v1.5 signatures are deterministic).
public struct MintRequest: Hashable, Sendable, Codable {
    /// The App Store receipt payload (absent for iOS 6 receipts).
    public var receipt: ReceiptDescription?
    /// Purchases appended to `receipt.inAppPurchases`, for large fixtures.
    public var generatedPurchases: GeneratedPurchases?
    /// An iOS 6 transaction receipt instead of an App Store receipt.
    public var ios6: IOS6ReceiptDescription?
    /// Signers, certificates and encoding.
    public var signing: SigningPlan
    /// Changes made after signing.
    public var tamper: Tamper?
    /// `der` (raw bytes; plist text for iOS 6) or `base64`.
    public var output: String?
    /// The intended verdict.
    public var expected: FixtureExpectation?

    public init(
        receipt: ReceiptDescription? = nil, generatedPurchases: GeneratedPurchases? = nil,
        ios6: IOS6ReceiptDescription? = nil, signing: SigningPlan, tamper: Tamper? = nil, output: String? = nil,
        expected: FixtureExpectation? = nil
    ) {
        self.receipt = receipt
        self.generatedPurchases = generatedPurchases
        self.ios6 = ios6
        self.signing = signing
        self.tamper = tamper
        self.output = output
        self.expected = expected
    }

    /// Reads a request from JSON.
    public init(json: Data) throws(ForgeError) {
        do {
            self = try JSONDecoder().decode(MintRequest.self, from: json)
        } catch {
            throw ForgeError(.invalidRequest, "not a mint request: \(error)")
        }
    }

    /// `true` for iOS 6 transaction receipts.
    package var isIOS6: Bool { ios6 != nil }

    /// `true` when the output is base64 text.
    package var isBase64: Bool { output == "base64" }

    /// The signed payload's description: `receipt` with the generated purchases appended.
    public var signedReceipt: ReceiptDescription? {
        guard var receipt else { return nil }
        if let generatedPurchases { receipt.inAppPurchases += generatedPurchases.purchases() }
        return receipt
    }

    /// The description of the payload actually carried: ``signedReceipt`` with ``tamper`` applied.
    public var carriedReceipt: ReceiptDescription? {
        guard var receipt = signedReceipt else { return nil }
        if let version = tamper?.applicationVersion { receipt.applicationVersion = version }
        return receipt
    }

    /// The `purchase-info` entries actually carried by an iOS 6 receipt.
    package var carriedPurchaseInfo: [IOS6PlistEntry]? {
        guard let ios6 else { return nil }
        guard let replacements = tamper?.purchaseInfo else { return ios6.purchaseInfo }
        return ios6.purchaseInfo(replacing: replacements)
    }

    /// The signing options, with every named certificate and key loaded from `pki`.
    public func signedDataOptions(pki: TestPKI) throws(ForgeError) -> SignedDataOptions {
        guard let digest = DigestAlgorithm(rawValue: signing.digest) else {
            throw ForgeError(.invalidRequest, "unknown digest \(signing.digest)")
        }
        let signers = try signing.signers.map { (plan) throws(ForgeError) in
            SignerOptions(
                identity: try pki.identity(certificate: plan.certificate, key: plan.key),
                signedAttributes: plan.signedAttributes ?? .none)
        }
        let certificates = try signing.certificates.map { (name) throws(ForgeError) in
            try pki.certificate(named: name)
        }
        let lengthForm: DERWriter.LengthForm
        switch signing.encoding ?? "der" {
        case "der": lengthForm = .definite
        case "ber": lengthForm = .indefinite
        case let other: throw ForgeError(.invalidRequest, "unknown encoding \(other) (der or ber)")
        }
        let form: EContentForm
        switch signing.eContent ?? "primitive" {
        case "primitive": form = .primitive
        case "xcode": form = .xcodeWrapped
        case "segmented": form = .segmented(maximumSegmentLength: signing.segmentLength ?? 1000)
        case let other: throw ForgeError(.invalidRequest, "unknown eContent form \(other)")
        }
        return SignedDataOptions(
            digest: digest, signers: signers, certificates: certificates, lengthForm: lengthForm, eContentForm: form)
    }

    /// Mints the receipt: DER for App Store receipts, plist text for iOS 6 ones (before any base64).
    public func mint(pki: TestPKI) throws(ForgeError) -> [UInt8] {
        if let ios6 {
            guard let signer = signing.signers.first else {
                throw ForgeError(.invalidRequest, "an iOS 6 receipt needs one signer")
            }
            let identity = try pki.identity(certificate: signer.certificate, key: signer.key)
            return try IOS6ReceiptMinter.mint(ios6, identity: identity, embeddedPurchaseInfo: carriedPurchaseInfo)
        }
        guard let signed = signedReceipt, let carried = carriedReceipt else {
            throw ForgeError(.invalidRequest, "a request needs a receipt or an ios6 description")
        }
        let signedPayload = signed.payloadDER()
        let carriedPayload = tamper == nil ? signedPayload : carried.payloadDER()
        return try ReceiptMinter.mint(
            payload: signedPayload, embeddedPayload: carriedPayload, options: signedDataOptions(pki: pki))
    }

    /// The file extension of the minted file: `receipt` (DER), `txt` (iOS 6 plist text) or `b64`.
    package var fileExtension: String {
        isBase64 ? "b64" : (isIOS6 ? "txt" : "receipt")
    }

    /// The bytes of the fixture file: ``mint(pki:)``, base64-encoded when `output` is `base64`.
    package func fileContents(pki: TestPKI) throws(ForgeError) -> [UInt8] {
        let minted = try mint(pki: pki)
        return isBase64 ? Array(Data(minted).base64EncodedString().utf8) : minted
    }

    /// The `NAME.expected.json` document for a fixture file named `fileName`, or `nil` without
    /// ``expected``. Keys are sorted, so it is byte-stable.
    package func expectationJSON(fileName: String) throws(ForgeError) -> Data? {
        guard let expected else { return nil }
        // Generated purchases are summarised (parameters, first, last) rather than listed, so a
        // 1,200-purchase fixture's expectation stays small; the carried receipt lists the rest.
        var listedReceipt = carriedReceipt
        let generated = generatedPurchases?.purchases() ?? []
        if !generated.isEmpty, var receipt = listedReceipt {
            receipt.inAppPurchases.removeLast(generated.count)
            listedReceipt = receipt
        }
        let document = ExpectedFixture(
            fixture: fileName,
            kind: isIOS6 ? "ios6-transaction-receipt" : "app-receipt",
            format: isBase64 ? "base64" : (isIOS6 ? "text" : "der"),
            verdict: expected.verdict,
            reason: expected.reason,
            root: expected.root,
            validationTime: expected.validationTime ?? carriedReceipt?.creationDate,
            exercises: expected.exercises,
            digest: signing.digest,
            signedAttributes: signing.signers.contains { ($0.signedAttributes ?? .none) != .none },
            encoding: signing.encoding ?? "der",
            eContent: signing.eContent ?? "primitive",
            inAppPurchaseCount: carriedReceipt?.inAppPurchases.count,
            receipt: listedReceipt,
            generatedPurchases: generatedPurchases,
            firstGeneratedPurchase: generated.first,
            lastGeneratedPurchase: generated.last,
            purchaseInfo: carriedPurchaseInfo)
        return try FixtureExpectation.documentJSON(document)
    }
}

/// The `NAME.expected.json` document: the verdict plus everything a decoder should read back.
struct ExpectedFixture: Codable {
    var fixture: String
    var kind: String
    var format: String
    var verdict: String
    var reason: String?
    var root: String
    var validationTime: String?
    var exercises: String
    var digest: String
    var signedAttributes: Bool
    var encoding: String
    var eContent: String
    var inAppPurchaseCount: Int?
    /// The carried payload; with generated purchases, only the purchases listed in the request.
    var receipt: ReceiptDescription?
    var generatedPurchases: GeneratedPurchases?
    var firstGeneratedPurchase: InAppPurchaseDescription?
    var lastGeneratedPurchase: InAppPurchaseDescription?
    var purchaseInfo: [IOS6PlistEntry]?
}
