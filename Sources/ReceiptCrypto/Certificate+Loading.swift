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
            guard let x509 = PEM_read_bio_X509(bio, nil, nil, nil) else { break }
            defer { X509_free(x509) }
            // Re-encoded to DER so every Certificate is built through the one DER initializer.
            var out: UnsafeMutablePointer<UInt8>? = nil
            let length = i2d_X509(x509, &out)
            guard length > 0, let out else { throw CryptoError.openSSL("i2d_X509", code: .invalidCertificate) }
            defer { receipt_OPENSSL_free(out) }
            result.append(try Certificate(derEncoded: ArraySlice(UnsafeBufferPointer(start: out, count: Int(length)))))
        }
        // The loop ends on "no start line" at end of input; anything else queued is a real PEM error.
        let queued = CryptoError.drainErrorQueue()
        guard !result.isEmpty else {
            throw CryptoError(.invalidCertificate, "no PEM certificate could be read: \(queued)")
        }
        return result
    }
}
