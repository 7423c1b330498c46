@_spi(Fuzzing) public import BER

/// The PKCS#7 / CMS `SignedData` that wraps an App Store receipt (RFC 5652 §5.1):
///
/// ```
/// ContentInfo ::= SEQUENCE { contentType ContentType, content [0] EXPLICIT ANY }
/// SignedData ::= SEQUENCE {
///   version CMSVersion,
///   digestAlgorithms DigestAlgorithmIdentifiers,
///   encapContentInfo EncapsulatedContentInfo,
///   certificates [0] IMPLICIT CertificateSet OPTIONAL,
///   crls [1] IMPLICIT RevocationInfoChoices OPTIONAL,
///   signerInfos SignerInfos }
/// EncapsulatedContentInfo ::= SEQUENCE {
///   eContentType ContentType,
///   eContent [0] EXPLICIT OCTET STRING OPTIONAL }
/// ```
///
/// Every byte field is a slice of the input, so the verifier checks exactly what was signed and
/// never re-encodes anything.
public struct SignedData: Sendable {
    public let version: Int64
    public let digestAlgorithms: [AlgorithmIdentifier]
    public let eContentType: ASN1ObjectIdentifier
    /// The value of the eContent OCTET STRING: exactly the octets the signature's digest covers
    /// (RFC 5652 §5.4). A slice of the input, unless BER split it into segments.
    public let eContent: ArraySlice<UInt8>
    /// The receipt payload: `eContent` with the extra OCTET STRING of Xcode receipts unwrapped.
    public let payload: ArraySlice<UInt8>
    /// The DER of each certificate in `certificates`, in encoded order.
    public let certificates: [ArraySlice<UInt8>]
    public let signerInfos: [SignerInfo]

    /// How many nested OCTET STRING wrappers around the payload are unwrapped before giving up.
    static let maximumPayloadWrappers = 4

    /// The most elements read from any list of the SignedData: `digestAlgorithms`, `certificates`,
    /// `signerInfos`, and a signer's signed attributes. Apple's receipts carry 1, 3, 1 and none; Xcode's 1, 1, 1
    /// and none. Past it the receipt is malformed (`ber.too_many_elements`), so a megabyte of tiny elements
    /// cannot cost a decode each (the verifier reads at most 3 certificates anyway).
    public static let maximumListElements = 16

    /// Reads every element of `list` through `body`, refusing more than ``maximumListElements``.
    static func forEachListElement(
        _ list: BERElement, _ what: String, _ body: (BERElement) throws(BERError) -> Void
    ) throws(BERError) {
        var reader = try list.children()
        var count = 0
        while let element = try reader.next() {
            count += 1
            guard count <= maximumListElements else {
                throw BERError(.tooManyElements, "more than \(maximumListElements) \(what)", at: element.offset)
            }
            try body(element)
        }
    }

    /// Decodes a whole `ContentInfo` holding `SignedData`.
    /// - Throws: ``ReceiptError`` with a stable code; trailing bytes after the ContentInfo are rejected.
    public init(berEncoded bytes: ArraySlice<UInt8>) throws(ReceiptError) {
        do {
            var top = BERReader(bytes)
            let contentInfo = try top.read(expecting: .sequence)
            try top.expectEnd()
            var contentInfoFields = try contentInfo.children()
            let contentType = try contentInfoFields.read(expecting: .objectIdentifier).objectIdentifierValue()
            guard contentType == .pkcs7SignedData else {
                throw ReceiptError(.notSignedData, "content type is \(contentType), not signedData")
            }
            let explicit = try contentInfoFields.read(expecting: .contextSpecific(0, constructed: true))
            try contentInfoFields.expectEnd()
            var inner = try explicit.children()
            let signedData = try inner.read(expecting: .sequence)
            try inner.expectEnd()
            try self.init(signedData: signedData)
        } catch {
            throw ReceiptError(mapping: error, while: "reading the PKCS#7 SignedData")
        }
    }

    private init(signedData: BERElement) throws {
        var fields = try signedData.children()
        version = try fields.read(expecting: .integer).integerValue()
        var algorithms: [AlgorithmIdentifier] = []
        try Self.forEachListElement(try fields.read(expecting: .set), "digest algorithms") {
            (element) throws(BERError) in
            algorithms.append(try AlgorithmIdentifier(berElement: element))
        }
        digestAlgorithms = algorithms

        var encapsulated = try fields.read(expecting: .sequence).children()
        eContentType = try encapsulated.read(expecting: .objectIdentifier).objectIdentifierValue()
        let explicitContent = try encapsulated.readIfPresent(.contextSpecific(0, constructed: true))
        try encapsulated.expectEnd()
        guard eContentType == .pkcs7Data else {
            throw ReceiptError(.unsupportedContentType, "encapsulated content type is \(eContentType), not data")
        }
        guard let explicitContent else {
            throw ReceiptError(.missingContent, "SignedData has no eContent (detached signature)")
        }
        var contentReader = try explicitContent.children()
        eContent = try contentReader.readAny().stringBytes(expecting: .octetString)
        try contentReader.expectEnd()
        payload = try Self.unwrapPayload(eContent)

        var found: [ArraySlice<UInt8>] = []
        if let set = try fields.readIfPresent(.contextSpecific(0, constructed: true)) {
            // CertificateChoices: receipts use only the plain `certificate` alternative (a
            // SEQUENCE); the tagged legacy alternatives are skipped (and counted).
            try Self.forEachListElement(set, "certificates") { (element) throws(BERError) in
                if element.tag == .sequence { found.append(element.encoded) }
            }
        }
        certificates = found
        _ = try fields.readIfPresent(.contextSpecific(1, constructed: true))

        var signers: [SignerInfo] = []
        try Self.forEachListElement(try fields.read(expecting: .set), "signer infos") { (element) throws(BERError) in
            signers.append(try SignerInfo(berElement: element))
        }
        try fields.expectEnd()
        signerInfos = signers
    }

    /// Xcode's StoreKit Testing receipts wrap the payload SET in one more OCTET STRING; unwrap
    /// until the SET appears.
    private static func unwrapPayload(_ content: ArraySlice<UInt8>) throws(BERError) -> ArraySlice<UInt8> {
        var current = content
        for _ in 0..<maximumPayloadWrappers {
            guard let first = current.first, first & 0x1F == 0x04, first & 0xC0 == 0 else { return current }
            var reader = BERReader(current)
            current = try reader.readAny().stringBytes(expecting: .octetString)
            try reader.expectEnd()
        }
        return current
    }
}
