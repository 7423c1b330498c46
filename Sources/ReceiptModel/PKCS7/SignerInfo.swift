@_spi(Fuzzing) public import BER

/// One signer of a `SignedData` (RFC 5652 §5.3):
///
/// ```
/// SignerInfo ::= SEQUENCE {
///   version CMSVersion,
///   sid SignerIdentifier,
///   digestAlgorithm DigestAlgorithmIdentifier,
///   signedAttrs [0] IMPLICIT SignedAttributes OPTIONAL,
///   signatureAlgorithm SignatureAlgorithmIdentifier,
///   signature SignatureValue,
///   unsignedAttrs [1] IMPLICIT UnsignedAttributes OPTIONAL }
/// SignerIdentifier ::= CHOICE {
///   issuerAndSerialNumber IssuerAndSerialNumber,
///   subjectKeyIdentifier [0] SubjectKeyIdentifier }
/// ```
public struct SignerInfo: Sendable {
    public let version: Int64
    /// The DER of the signer certificate's issuer `Name`, when `sid` is `issuerAndSerialNumber`.
    public let issuer: ArraySlice<UInt8>?
    /// The content octets of the signer certificate's serial number INTEGER.
    public let serialNumber: ArraySlice<UInt8>?
    /// The key identifier, when `sid` is `subjectKeyIdentifier`.
    public let subjectKeyIdentifier: ArraySlice<UInt8>?
    public let digestAlgorithm: AlgorithmIdentifier
    /// The encoded `[0] IMPLICIT SET OF Attribute`, tag included, exactly as received. RFC 5652
    /// §5.4: the signature covers this encoding with its tag octet replaced by SET (0x31).
    public let signedAttributes: ArraySlice<UInt8>?
    /// The value of the `messageDigest` signed attribute, when signed attributes are present.
    public let messageDigest: ArraySlice<UInt8>?
    /// The value of the `contentType` signed attribute, when present.
    public let contentType: ASN1ObjectIdentifier?
    public let signatureAlgorithm: AlgorithmIdentifier
    public let signature: ArraySlice<UInt8>

    /// Decodes the SEQUENCE `element`.
    package init(berElement element: BERElement) throws(BERError) {
        try element.expectTag(.sequence)
        var fields = try element.children()
        version = try fields.read(expecting: .integer).integerValue()

        let sid = try fields.readAny()
        if sid.tag == .sequence {
            var issuerAndSerial = try sid.children()
            issuer = try issuerAndSerial.read(expecting: .sequence).encoded
            serialNumber = try issuerAndSerial.read(expecting: .integer).content
            try issuerAndSerial.expectEnd()
            subjectKeyIdentifier = nil
        } else if sid.tag.tagClass == .contextSpecific, sid.tag.number == 0 {
            issuer = nil
            serialNumber = nil
            subjectKeyIdentifier = try sid.stringBytes(expecting: sid.tag.primitive)
        } else {
            throw BERError(.unexpectedTag, "SignerIdentifier has tag \(sid.tag)", at: sid.offset)
        }

        digestAlgorithm = try AlgorithmIdentifier(berElement: fields.read(expecting: .sequence))

        if let attributes = try fields.readIfPresent(.contextSpecific(0, constructed: true)) {
            signedAttributes = attributes.encoded
            (messageDigest, contentType) = try Self.readSignedAttributes(attributes)
        } else {
            signedAttributes = nil
            messageDigest = nil
            contentType = nil
        }

        signatureAlgorithm = try AlgorithmIdentifier(berElement: fields.read(expecting: .sequence))
        signature = try fields.readAny().stringBytes(expecting: .octetString)
        _ = try fields.readIfPresent(.contextSpecific(1, constructed: true))
        try fields.expectEnd()
    }

    /// Picks out the two attributes RFC 5652 §5.3 requires when signed attributes are present.
    /// `Attribute ::= SEQUENCE { attrType OBJECT IDENTIFIER, attrValues SET OF AttributeValue }`
    private static func readSignedAttributes(
        _ attributes: BERElement
    ) throws(BERError) -> (ArraySlice<UInt8>?, ASN1ObjectIdentifier?) {
        var messageDigest: ArraySlice<UInt8>?
        var contentType: ASN1ObjectIdentifier?
        try SignedData.forEachListElement(attributes, "signed attributes") { (attribute) throws(BERError) in
            try attribute.expectTag(.sequence)
            var parts = try attribute.children()
            let type = try parts.read(expecting: .objectIdentifier).objectIdentifierValue()
            var values = try parts.read(expecting: .set).children()
            try parts.expectEnd()
            // RFC 5652 §11.2/§11.1: each of these attributes has exactly one value.
            if type == .messageDigestAttribute {
                guard messageDigest == nil else {
                    throw BERError(.unexpectedTag, "messageDigest attribute repeated", at: attribute.offset)
                }
                messageDigest = try values.readAny().stringBytes(expecting: .octetString)
                try values.expectEnd()
            } else if type == .contentTypeAttribute {
                guard contentType == nil else {
                    throw BERError(.unexpectedTag, "contentType attribute repeated", at: attribute.offset)
                }
                contentType = try values.read(expecting: .objectIdentifier).objectIdentifierValue()
                try values.expectEnd()
            }
        }
        return (messageDigest, contentType)
    }
}
