internal import COpenSSL

extension Certificate {
    /// Parses every certificate in a file's contents, PEM (any number of `CERTIFICATE` blocks) or DER (one).
    ///
    /// Exists so extra trust anchors can be loaded from files whatever their encoding: a file that starts
    /// with `-----BEGIN` is read as PEM, anything else as a single DER certificate.
    /// - Throws: ``CryptoError/Code/invalidCertificate`` when nothing parses or a PEM block is malformed.
    package static func certificates(fromFileContents bytes: [UInt8]) throws(CryptoError) -> [Certificate] {
        let marker = Array("-----BEGIN".utf8)
        let start = bytes.firstIndex { $0 != 0x20 && $0 != 0x0A && $0 != 0x0D && $0 != 0x09 } ?? bytes.endIndex
        guard bytes[start...].starts(with: marker) else {
            return [try Certificate(derEncoded: bytes[...])]
        }
        let bio = try openSSLCheck(BIO_new(BIO_s_mem()), "BIO_new")
        defer { BIO_free(bio) }
        guard bytes.count <= Int(Int32.max) else { throw CryptoError(.invalidCertificate, "PEM file too large") }
        let written = bytes.withUnsafeBytes { BIO_write(bio, $0.baseAddress, Int32($0.count)) }
        try openSSLCheck(written, "BIO_write")
        var result: [Certificate] = []
        while true {
            var name: UnsafeMutablePointer<CChar>? = nil
            var header: UnsafeMutablePointer<CChar>? = nil
            var data: UnsafeMutablePointer<UInt8>? = nil
            var length = 0
            guard PEM_read_bio(bio, &name, &header, &data, &length) == 1 else { break }
            defer {
                receipt_OPENSSL_free(name)
                receipt_OPENSSL_free(header)
                receipt_OPENSSL_free(data)
            }
            // The blocks PEM_read_bio_X509 reads; it skips any other kind, and so does this. Each block's DER goes
            // straight to the one DER initializer, decoded once, in the thread's context (DecodingContext).
            guard let name, Self.pemCertificateNames.contains(String(cString: name)) else { continue }
            guard header.map({ $0.pointee == 0 }) ?? true else {
                throw CryptoError(.invalidCertificate, "a PEM certificate block carries headers (an encrypted block?)")
            }
            guard let data, length > 0 else { throw CryptoError(.invalidCertificate, "an empty PEM certificate block") }
            result.append(try Certificate(derEncoded: ArraySlice(UnsafeBufferPointer(start: data, count: length))))
        }
        // The loop ends on "no start line" at end of input; anything else queued is a real PEM error.
        let queued = CryptoError.drainErrorQueue()
        guard !result.isEmpty else {
            throw CryptoError(.invalidCertificate, "no PEM certificate could be read: \(queued)")
        }
        return result
    }

    /// The PEM labels of a certificate (RFC 7468 §5.1, and the older label OpenSSL still reads).
    private static let pemCertificateNames: Set<String> = ["CERTIFICATE", "X509 CERTIFICATE"]
}
