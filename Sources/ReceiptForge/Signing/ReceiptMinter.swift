@_spi(Fuzzing) import BER
import ReceiptCrypto
import ReceiptModel

/// Mints App Store receipts: a payload wrapped in PKCS#7 `SignedData`, signed by the forge's keys.
///
/// ```
/// ContentInfo ::= SEQUENCE { contentType OBJECT IDENTIFIER (signedData), content [0] EXPLICIT SignedData }
/// SignedData ::= SEQUENCE { version, digestAlgorithms SET OF, encapContentInfo,
///                           certificates [0] IMPLICIT SET OF OPTIONAL, signerInfos SET OF SignerInfo }
/// SignerInfo ::= SEQUENCE { version, sid IssuerAndSerialNumber, digestAlgorithm,
///                           signedAttrs [0] IMPLICIT SET OF OPTIONAL, signatureAlgorithm, signature }
/// ```
/// (RFC 5652 §5.) Signatures are RSA PKCS#1 v1.5, which is deterministic: the same key, content
/// and options always give the same bytes.
public enum ReceiptMinter {
    /// Mints a receipt whose payload is `description`.
    public static func mint(_ description: ReceiptDescription, options: SignedDataOptions) throws(ForgeError)
        -> [UInt8]
    {
        try mint(payload: description.payloadDER(), options: options)
    }

    /// Wraps `payload` in `SignedData`.
    ///
    /// - Parameters:
    ///   - payload: the bytes every signer signs.
    ///   - embeddedPayload: the bytes carried in `eContent`; `nil` carries `payload`. Passing other
    ///     bytes makes a receipt tampered after signing.
    ///   - options: signers, certificates and encoding.
    public static func mint(payload: [UInt8], embeddedPayload: [UInt8]? = nil, options: SignedDataOptions)
        throws(ForgeError) -> [UInt8]
    {
        let signerInfos = try options.signers.map { (signer) throws(ForgeError) in
            try signerInfo(for: signer, signing: payload, digest: options.digest)
        }
        let carried = embeddedPayload ?? payload
        var writer = DERWriter(
            constructedLengthForm: options.lengthForm,
            reservingCapacity: carried.count + options.certificates.reduce(1024) { $0 + $1.der.count })
        writer.sequence { contentInfo in
            contentInfo.objectIdentifier(.pkcs7SignedData)
            contentInfo.contextSpecific(0) { explicit in
                explicit.sequence { signedData in
                    signedData.integer(1)  // CMSVersion 1: issuerAndSerialNumber sids, data content
                    signedData.set { algorithms in
                        writeAlgorithm(Self.digestIdentifier(options.digest), into: &algorithms)
                    }
                    signedData.sequence { encapContentInfo in
                        encapContentInfo.objectIdentifier(.pkcs7Data)
                        encapContentInfo.contextSpecific(0) { eContent in
                            writeEContent(carried, form: options.eContentForm, into: &eContent)
                        }
                    }
                    if !options.certificates.isEmpty {
                        signedData.contextSpecific(0) { certificates in
                            for certificate in options.certificates { certificates.encoded(certificate.der) }
                        }
                    }
                    signedData.set { infos in
                        for info in signerInfos { infos.encoded(info) }
                    }
                }
            }
        }
        return writer.bytes
    }

    /// One DER `SignerInfo` over `content`.
    static func signerInfo(for signer: SignerOptions, signing content: [UInt8], digest: DigestAlgorithm)
        throws(ForgeError) -> [UInt8]
    {
        let contentDigest = try hash(content[...], digest)
        var signedAttributes: [UInt8]? = nil
        var signatureInput = contentDigest
        if signer.signedAttributes != .none {
            var messageDigest = contentDigest
            if signer.signedAttributes == .wrongMessageDigest, !messageDigest.isEmpty { messageDigest[0] ^= 0xFF }
            let set = signedAttributesSet(messageDigest: messageDigest)
            // RFC 5652 §5.4: the signature covers the DER of the attributes with the SET OF tag.
            signatureInput = try hash(set[...], digest)
            var implicit = set
            implicit[0] = 0xA0  // [0] IMPLICIT, constructed
            signedAttributes = implicit
        }
        let signature: [UInt8]
        do {
            signature = try signer.identity.privateKey.signRSAPKCS1(digest: signatureInput, algorithm: digest)
        } catch {
            throw ForgeError(.signingFailed, "RSA signing failed: \(error)")
        }
        var writer = DERWriter()
        writer.sequence { info in
            info.integer(1)  // version 1: sid is issuerAndSerialNumber
            info.sequence { sid in
                sid.encoded(signer.identity.certificate.issuerDER)
                sid.primitive(.integer, content: signer.identity.certificate.serialNumber)
            }
            writeAlgorithm(Self.digestIdentifier(digest), into: &info)
            if let signedAttributes { info.encoded(signedAttributes) }
            writeAlgorithm(.rsaEncryption, into: &info)
            info.octetString(signature)
        }
        return writer.bytes
    }

    /// `SET OF Attribute` with `contentType` = data and `messageDigest`, DER-sorted (X.690 §11.6).
    static func signedAttributesSet(messageDigest: [UInt8]) -> [UInt8] {
        var contentType = DERWriter()
        contentType.sequence { attribute in
            attribute.objectIdentifier(.contentTypeAttribute)
            attribute.set { values in values.objectIdentifier(.pkcs7Data) }
        }
        var digestAttribute = DERWriter()
        digestAttribute.sequence { attribute in
            attribute.objectIdentifier(.messageDigestAttribute)
            attribute.set { values in values.octetString(messageDigest) }
        }
        var set = DERWriter()
        set.setOf(sorting: [contentType.bytes, digestAttribute.bytes])
        return set.bytes
    }

    static func hash(_ bytes: ArraySlice<UInt8>, _ digest: DigestAlgorithm) throws(ForgeError) -> [UInt8] {
        do {
            return try digest.hash(bytes)
        } catch {
            throw ForgeError(.signingFailed, "hashing failed: \(error)")
        }
    }

    /// The digest algorithm identifiers (RFC 3370 §2, RFC 5754 §2), as the model names them.
    static func digestIdentifier(_ algorithm: DigestAlgorithm) -> ASN1ObjectIdentifier {
        switch algorithm {
        case .sha1: .sha1
        case .sha256: .sha256
        case .sha384: .sha384
        case .sha512: .sha512
        }
    }

    private static func writeAlgorithm(_ identifier: ASN1ObjectIdentifier, into writer: inout DERWriter) {
        writer.sequence(lengthForm: .definite) { algorithm in
            algorithm.objectIdentifier(identifier)
            algorithm.null()
        }
    }

    private static func writeEContent(_ payload: [UInt8], form: EContentForm, into writer: inout DERWriter) {
        switch form {
        case .primitive:
            writer.octetString(payload)
        case .xcodeWrapped:
            writer.constructed(.octetString) { wrapper in wrapper.octetString(payload) }
        case .segmented(let maximumSegmentLength):
            let step = max(1, maximumSegmentLength)
            writer.constructed(.octetString) { wrapper in
                var start = 0
                repeat {
                    let end = start + min(payload.count - start, step)
                    wrapper.octetString(payload[start..<end])
                    start = end
                } while start < payload.count
            }
        }
    }
}
