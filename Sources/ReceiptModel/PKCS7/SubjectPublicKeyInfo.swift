@_spi(Fuzzing) package import BER

/// The public key of a DER certificate, read by this package's own BER reader before OpenSSL sees the
/// certificate, so that a verifier can refuse a key by its kind and size before any costly decoding.
///
/// OpenSSL 3 decodes a certificate's key inside `d2i_X509`, and some keys cost far more to decode than a
/// signature check: an elliptic-curve key with explicit parameters and a compressed point makes OpenSSL take
/// modular square roots over a field the certificate chooses (about 0.2 s per certificate). Reading the key's
/// algorithm and, for RSA, its sizes here first costs a walk over a few hundred bytes.
///
/// ```
/// Certificate ::= SEQUENCE { tbsCertificate TBSCertificate, signatureAlgorithm, signatureValue BIT STRING }
/// TBSCertificate ::= SEQUENCE { version [0] EXPLICIT Version DEFAULT v1, serialNumber INTEGER,
///     signature AlgorithmIdentifier, issuer Name, validity Validity, subject Name,
///     subjectPublicKeyInfo SubjectPublicKeyInfo, ... }
/// SubjectPublicKeyInfo ::= SEQUENCE { algorithm AlgorithmIdentifier, subjectPublicKey BIT STRING }
/// RSAPublicKey ::= SEQUENCE { modulus INTEGER, publicExponent INTEGER }
/// ```
/// (RFC 5280 §4.1, RFC 8017 §A.1.1.)
package struct SubjectPublicKeyInfo: Sendable {
    /// `algorithm.algorithm`, e.g. `rsaEncryption`.
    package let algorithm: ASN1ObjectIdentifier
    /// For `rsaEncryption` (parameters NULL or absent, a well-formed `RSAPublicKey`): the modulus and public
    /// exponent sizes in bits. `nil` for any other key.
    package let rsaSizes: (modulusBits: Int, exponentBits: Int)?
    /// For `id-ecPublicKey` with a named curve (RFC 5480 §2.1.1: parameters an OBJECT IDENTIFIER, not explicit
    /// parameters): the curve. `nil` for any other key, explicit parameters included.
    package let namedCurve: ASN1ObjectIdentifier?

    /// Reads the key of the DER certificate `der`, without decoding anything else of it.
    /// - Throws: ``BERError`` when the certificate is not shaped as above.
    package init(certificate der: ArraySlice<UInt8>) throws(BERError) {
        var top = BERReader(der)
        var certificate = try top.read(expecting: .sequence).children()
        var tbs = try certificate.read(expecting: .sequence).children()
        _ = try tbs.readIfPresent(.contextSpecific(0, constructed: true))  // version
        _ = try tbs.read(expecting: .integer)  // serialNumber
        _ = try tbs.read(expecting: .sequence)  // signature
        _ = try tbs.read(expecting: .sequence)  // issuer
        _ = try tbs.read(expecting: .sequence)  // validity
        _ = try tbs.read(expecting: .sequence)  // subject
        var info = try tbs.read(expecting: .sequence).children()
        let identifier = try AlgorithmIdentifier(berElement: info.read(expecting: .sequence))
        let key = try info.read(expecting: .bitString)
        try info.expectEnd()
        algorithm = identifier.algorithm
        // Explicit curve parameters (a SEQUENCE, not an OID) leave `namedCurve` nil: the key is still read, and a
        // verifier refuses it by kind.
        namedCurve = identifier.algorithm == .ecPublicKey ? identifier.parameters.flatMap(Self.namedCurve) : nil
        guard identifier.algorithm == .rsaEncryption,
            identifier.parameters.map({ $0.elementsEqual([0x05, 0x00]) }) ?? true
        else {
            rsaSizes = nil
            return
        }
        rsaSizes = try Self.rsaSizes(bitString: key)
    }

    /// The curve of `ECParameters ::= CHOICE { namedCurve OBJECT IDENTIFIER, … }` when it is the named one.
    private static func namedCurve(_ parameters: ArraySlice<UInt8>) -> ASN1ObjectIdentifier? {
        var reader = BERReader(parameters)
        guard let element = try? reader.read(expecting: .objectIdentifier), (try? reader.expectEnd()) != nil else {
            return nil
        }
        return try? element.objectIdentifierValue()
    }

    /// The modulus and exponent sizes of the DER `RSAPublicKey` in a BIT STRING with no unused bits.
    private static func rsaSizes(bitString: BERElement) throws(BERError) -> (modulusBits: Int, exponentBits: Int)? {
        guard bitString.content.first == 0 else { return nil }
        var outer = BERReader(bitString.content.dropFirst())
        var fields = try outer.read(expecting: .sequence).children()
        try outer.expectEnd()
        let modulus = try fields.read(expecting: .integer)
        let exponent = try fields.read(expecting: .integer)
        try fields.expectEnd()
        guard let modulusBits = positiveBitCount(modulus.content), let exponentBits = positiveBitCount(exponent.content)
        else { return nil }
        return (modulusBits, exponentBits)
    }

    /// The bit length of a positive INTEGER's content octets; `nil` for zero or a negative number.
    static func positiveBitCount(_ content: ArraySlice<UInt8>) -> Int? {
        guard let first = content.first, first & 0x80 == 0 else { return nil }
        let significant = content.drop(while: { $0 == 0 })
        guard let lead = significant.first else { return nil }
        return (significant.count - 1) * 8 + (8 - lead.leadingZeroBitCount)
    }
}
