internal import BER
internal import COpenSSL

#if canImport(Glibc)
    internal import Glibc
#elseif canImport(Darwin)
    internal import Darwin
#endif

/// An X.509 certificate parsed once by OpenSSL, with the fields verification reads cached as Swift values.
///
/// `d2i_X509` is the expensive step on the verification path (100–170 µs per certificate in OpenSSL 3.0),
/// so a certificate is parsed a single time and its subject, issuer, validity, fingerprint, extensions
/// and public key are read out in `init`. Owns its `X509`.
///
/// `@unchecked Sendable`: every stored property is an immutable Swift value except the `X509` pointer,
/// which after `init` is only read (OpenSSL documents `X509` objects as safe for concurrent read-only
/// use once their extensions are cached, which `init` forces with `X509_get_extension_flags`).
package final class Certificate: @unchecked Sendable {
    let pointer: OpaquePointer

    /// The DER encoding the certificate was parsed from.
    ///
    /// A copy of the caller's bytes, kept so the certificate outlives the receipt it came from
    /// (the verified-chain cache holds certificates across receipts).
    package let derEncoded: [UInt8]
    /// The subject name in RFC 2253 form, e.g. `CN=Apple Root CA,OU=Apple Certification Authority,O=Apple Inc.,C=US`.
    package let subject: String
    /// The issuer name in RFC 2253 form.
    package let issuer: String
    /// The DER encoding of the subject `Name`.
    package let subjectDER: [UInt8]
    /// The DER encoding of the issuer `Name`, as RFC 5652 §10.2.4 `IssuerAndSerialNumber` carries it.
    package let issuerDER: [UInt8]
    /// The content octets of the `serialNumber` INTEGER (two's complement, as encoded).
    package let serialNumber: [UInt8]
    /// The start of the validity period, in seconds since 1970-01-01T00:00:00Z.
    package let notBefore: Int64
    /// The end of the validity period, in seconds since 1970-01-01T00:00:00Z.
    package let notAfter: Int64
    /// SHA-256 of ``derEncoded``: the fingerprint trust anchors are pinned by.
    package let sha256Fingerprint: [UInt8]
    /// The dotted OIDs of every extension, in encoded order.
    package let extensionOIDs: [String]
    /// `true` when basicConstraints says `cA: TRUE` (RFC 5280 §4.2.1.9).
    package let isCA: Bool
    /// `true` when subject and issuer names are equal (the certificate claims to be self-issued).
    package let isSelfIssued: Bool
    /// The subject public key, parsed once.
    package let publicKey: PublicKey
    /// The subjectKeyIdentifier extension's key identifier (RFC 5280 §4.2.1.2), when present: how a
    /// CMS `SignerIdentifier` may name its certificate instead of issuer and serial.
    package let subjectKeyIdentifier: [UInt8]?

    /// Parses one DER certificate.
    ///
    /// - Parameter derEncoded: exactly one DER `Certificate`; trailing bytes are rejected.
    /// - Throws: ``CryptoError/Code/invalidCertificate`` when OpenSSL cannot parse it or a field is unusable.
    package init(derEncoded der: ArraySlice<UInt8>) throws(CryptoError) {
        var consumed = 0
        // Decoded in this thread's own library context (DecodingContext): the certificate fetches its key's
        // decoders and, later, its signature algorithms there.
        let context = DecodingContext.current
        var object: OpaquePointer? = try openSSLCheck(X509_new_ex(context, nil), "X509_new_ex")
        let parsed: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return nil }
            var cursor: UnsafePointer<UInt8>? = base
            let x509 = d2i_X509(&object, &cursor, buffer.count)
            if let cursor { consumed = cursor - base }
            return x509
        }
        // A failed d2i_X509 frees the object it was given and clears `object`; it is still set here only when
        // d2i_X509 never ran (no bytes).
        if parsed == nil, let object { X509_free(object) }
        let x509 = try openSSLCheck(parsed, "d2i_X509", code: .invalidCertificate)
        guard consumed == der.count else {
            X509_free(x509)
            throw CryptoError(.invalidCertificate, "\(der.count - consumed) bytes follow the certificate")
        }
        // A throwing class init never runs `deinit`, so every field is read before `self` takes ownership
        // and `x509` is freed here on failure.
        let fields: Fields
        do {
            fields = try Fields(x509, der: der, libraryContext: context)
        } catch {
            X509_free(x509)
            throw error
        }
        pointer = x509
        derEncoded = Array(der)  // copied: the certificate outlives the caller's buffer (the chain cache keeps it)
        subject = fields.subject
        issuer = fields.issuer
        issuerDER = fields.issuerDER
        subjectDER = fields.subjectDER
        serialNumber = fields.serialNumber
        notBefore = fields.notBefore
        notAfter = fields.notAfter
        sha256Fingerprint = fields.sha256Fingerprint
        extensionOIDs = fields.extensionOIDs
        isCA = fields.isCA
        isSelfIssued = fields.isSelfIssued
        publicKey = fields.publicKey
        subjectKeyIdentifier = fields.subjectKeyIdentifier
    }

    /// Everything read out of the `X509` in one pass, before the certificate object exists.
    private struct Fields {
        var subject: String
        var issuer: String
        var issuerDER: [UInt8]
        var subjectDER: [UInt8]
        var serialNumber: [UInt8]
        var notBefore: Int64
        var notAfter: Int64
        var sha256Fingerprint: [UInt8]
        var extensionOIDs: [String]
        var isCA: Bool
        var isSelfIssued: Bool
        var publicKey: PublicKey
        var subjectKeyIdentifier: [UInt8]?

        init(_ x509: OpaquePointer, der: ArraySlice<UInt8>, libraryContext: OpaquePointer?) throws(CryptoError) {
            // Forces OpenSSL to decode and cache the extensions now, so concurrent readers never race on it.
            let flags = X509_get_extension_flags(x509)
            guard flags & UInt32(EXFLAG_INVALID) == 0 else {
                throw CryptoError(.invalidCertificate, "an extension is malformed or repeated")
            }
            isCA = flags & UInt32(EXFLAG_CA) != 0
            sha256Fingerprint = try DigestAlgorithm.sha256.hash(der)

            let subjectName = try openSSLCheck(X509_get_subject_name(x509), "X509_get_subject_name")
            let issuerName = try openSSLCheck(X509_get_issuer_name(x509), "X509_get_issuer_name")
            subject = try Certificate.rfc2253(subjectName)
            issuer = try Certificate.rfc2253(issuerName)
            isSelfIssued = X509_NAME_cmp(subjectName, issuerName) == 0
            issuerDER = try Certificate.encode("i2d_X509_NAME") { i2d_X509_NAME(issuerName, $0) }
            subjectDER = try Certificate.encode("i2d_X509_NAME") { i2d_X509_NAME(subjectName, $0) }

            let serial = try openSSLCheck(X509_get0_serialNumber(x509), "X509_get0_serialNumber")
            let serialTLV = try Certificate.encode("i2d_ASN1_INTEGER") { i2d_ASN1_INTEGER(serial, $0) }
            serialNumber = try Certificate.contentOctets(ofDER: serialTLV)

            notBefore = try Certificate.epochSeconds(X509_get0_notBefore(x509), field: "notBefore")
            notAfter = try Certificate.epochSeconds(X509_get0_notAfter(x509), field: "notAfter")

            var oids: [String] = []
            let count = X509_get_ext_count(x509)
            if count > 0 {
                for index in 0..<count {
                    let ext = try openSSLCheck(X509_get_ext(x509, index), "X509_get_ext")
                    let object = try openSSLCheck(X509_EXTENSION_get_object(ext), "X509_EXTENSION_get_object")
                    oids.append(try Certificate.dottedOID(object))
                }
            }
            extensionOIDs = oids

            if let keyID = X509_get0_subject_key_id(x509), let data = ASN1_STRING_get0_data(keyID) {
                let length = Int(ASN1_STRING_length(keyID))
                subjectKeyIdentifier = length > 0 ? Array(UnsafeBufferPointer(start: data, count: length)) : nil
            } else {
                subjectKeyIdentifier = nil
            }

            // X509_get_pubkey returns a new reference, which PublicKey takes over.
            let key = try openSSLCheck(X509_get_pubkey(x509), "X509_get_pubkey", code: .invalidCertificate)
            publicKey = PublicKey(owning: key, libraryContext: libraryContext)
        }
    }

    deinit { X509_free(pointer) }

    /// `true` when `issuer`'s key verifies this certificate's signature (X509_verify); names are not compared.
    package func isSigned(by issuer: Certificate) -> Bool {
        // A predicate, not a setup step: 1 = signed by that key; 0 or -1 = not (the queue is drained).
        let result = withExtendedLifetime(issuer) { X509_verify(pointer, issuer.publicKey.pointer) }
        _ = CryptoError.drainErrorQueue()
        return result == 1
    }

    /// `true` when the certificate carries an extension with this dotted OID (critical or not).
    package func hasExtension(_ oid: String) -> Bool { extensionOIDs.contains(oid) }

    /// `true` when the certificate is valid at `instant` (whole seconds since 1970): `notBefore ≤ instant <
    /// notAfter`.
    ///
    /// This is OpenSSL's rule (`X509_cmp_time` counts "equal" as "earlier", so a certificate is already expired
    /// at its notAfter second), and the one rule every check of this package uses, cached or not: a verdict
    /// never depends on whether OpenSSL or a cache answered. A receipt's millisecond instant is floored to its
    /// second first (``ReceiptDate/secondsSince1970``), which makes the rule exact in milliseconds too:
    /// `notBefore·1000 ≤ t < notAfter·1000`.
    package func isValid(at instant: Int64) -> Bool {
        Self.validity(notBefore: notBefore, notAfter: notAfter, contains: instant)
    }

    /// The validity rule of ``isValid(at:)`` for any window (a cached path's intersection of windows, say).
    package static func validity(notBefore: Int64, notAfter: Int64, contains instant: Int64) -> Bool {
        notBefore <= instant && instant < notAfter
    }

    /// The SHA-256 fingerprint as upper-case hex, the form Apple and the docs print.
    package var sha256FingerprintHex: String {
        Hex.encode(sha256Fingerprint, uppercase: true)
    }

    private static func rfc2253(_ name: OpaquePointer) throws(CryptoError) -> String {
        let bio = try openSSLCheck(BIO_new(BIO_s_mem()), "BIO_new")
        defer { BIO_free(bio) }
        // XN_FLAG_RFC2253 escapes special characters; without ESC_MSB, UTF-8 stays readable.
        let flags = receipt_XN_FLAG_RFC2253_UTF8()
        // Not through openSSLCheck: it returns the bytes written, and 0 is a legitimate empty name; only -1 fails.
        guard X509_NAME_print_ex(bio, name, 0, flags) >= 0 else { throw CryptoError.openSSL("X509_NAME_print_ex") }
        var data: UnsafeMutablePointer<CChar>? = nil
        let length = receipt_BIO_get_mem_data(bio, &data)
        guard length > 0, let data else { return "" }
        return data.withMemoryRebound(to: UInt8.self, capacity: length) {
            String(decoding: UnsafeBufferPointer(start: $0, count: length), as: UTF8.self)
        }
    }

    private static func dottedOID(_ object: OpaquePointer) throws(CryptoError) -> String {
        var buffer = [CChar](repeating: 0, count: 128)
        let length = OBJ_obj2txt(&buffer, Int32(buffer.count), object, 1)  // 1: numeric form, never a name
        guard length > 0, Int(length) < buffer.count else {
            throw CryptoError(.invalidCertificate, "an extension OID cannot be printed")
        }
        return String(decoding: buffer.prefix(Int(length)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Runs one of OpenSSL's `i2d_*` encoders and returns the bytes it allocated.
    private static func encode(
        _ function: String, _ body: (UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>) -> Int32
    ) throws(CryptoError) -> [UInt8] {
        var out: UnsafeMutablePointer<UInt8>? = nil
        let length = body(&out)
        guard length > 0, let out else { throw CryptoError.openSSL(function) }
        defer { receipt_OPENSSL_free(out) }
        return Array(UnsafeBufferPointer(start: out, count: Int(length)))
    }

    /// The content octets of a short DER TLV that OpenSSL itself encoded.
    private static func contentOctets(ofDER tlv: [UInt8]) throws(CryptoError) -> [UInt8] {
        guard tlv.count >= 2 else { throw CryptoError(.invalidCertificate, "serial number encoding too short") }
        let first = tlv[1]
        if first < 0x80 { return Array(tlv.dropFirst(2)) }
        let lengthBytes = Int(first & 0x7F)
        guard lengthBytes > 0, tlv.count >= 2 + lengthBytes else {
            throw CryptoError(.invalidCertificate, "serial number length is malformed")
        }
        return Array(tlv.dropFirst(2 + lengthBytes))
    }

    /// Converts an `ASN1_TIME` (UTCTime or GeneralizedTime, RFC 5280 §4.1.2.5) to seconds since 1970.
    private static func epochSeconds(_ time: UnsafePointer<ASN1_TIME>?, field: String) throws(CryptoError) -> Int64 {
        guard let time else { throw CryptoError(.invalidCertificate, "\(field) is missing") }
        var parts = tm()
        try openSSLCheck(ASN1_TIME_to_tm(time, &parts), "ASN1_TIME_to_tm(\(field))", code: .invalidCertificate)
        // The C library's conversion of a broken-down UTC time (RFC 5280 times are UTC; timegm ignores the
        // time zone): no calendar arithmetic of our own here.
        return Int64(timegm(&parts))
    }
}
