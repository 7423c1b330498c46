internal import COpenSSL

/// A private key for the project's own test PKI: signs receipts minted by the forge.
///
/// Never used on the verification path. Owns its `EVP_PKEY`; `@unchecked Sendable` for the same
/// reason as ``PublicKey``: read-only after `init`, a fresh `EVP_PKEY_CTX` per signature.
public final class PrivateKey: @unchecked Sendable {
    let pointer: OpaquePointer

    /// Parses a PEM private key (PKCS#8 or traditional RSA), unencrypted.
    public init(pem: String) throws(CryptoError) {
        let bio = try openSSLCheck(BIO_new(BIO_s_mem()), "BIO_new")
        defer { BIO_free(bio) }
        let bytes = Array(pem.utf8)
        let written = bytes.withUnsafeBytes { BIO_write(bio, $0.baseAddress, Int32($0.count)) }
        try openSSLCheck(written, "BIO_write")
        pointer = try openSSLCheck(
            PEM_read_bio_PrivateKey(bio, nil, nil, nil), "PEM_read_bio_PrivateKey", code: .invalidKey)
    }

    deinit { EVP_PKEY_free(pointer) }

    /// The matching public key, as a DER `SubjectPublicKeyInfo`.
    public func subjectPublicKeyInfo() throws(CryptoError) -> [UInt8] {
        var out: UnsafeMutablePointer<UInt8>? = nil
        let length = i2d_PUBKEY(pointer, &out)
        guard length > 0, let out else { throw CryptoError.openSSL("i2d_PUBKEY") }
        defer { receipt_OPENSSL_free(out) }
        return Array(UnsafeBufferPointer(start: out, count: Int(length)))
    }

    /// Makes an RSA PKCS#1 v1.5 signature over an already computed digest.
    public func signRSAPKCS1(digest: [UInt8], algorithm: DigestAlgorithm) throws(CryptoError) -> [UInt8] {
        let context = try openSSLCheck(EVP_PKEY_CTX_new(pointer, nil), "EVP_PKEY_CTX_new")
        defer { EVP_PKEY_CTX_free(context) }
        try openSSLCheck(EVP_PKEY_sign_init(context), "EVP_PKEY_sign_init")
        try openSSLCheck(EVP_PKEY_CTX_set_rsa_padding(context, RSA_PKCS1_PADDING), "EVP_PKEY_CTX_set_rsa_padding")
        try openSSLCheck(EVP_PKEY_CTX_set_signature_md(context, algorithm.evpMD), "EVP_PKEY_CTX_set_signature_md")
        var length = 0
        _ = try digest.withUnsafeBufferPointer { (dig) throws(CryptoError) in
            try openSSLCheck(EVP_PKEY_sign(context, nil, &length, dig.baseAddress, dig.count), "EVP_PKEY_sign")
        }
        var signature = [UInt8](repeating: 0, count: length)
        _ = try signature.withUnsafeMutableBufferPointer { (sig) throws(CryptoError) in
            try digest.withUnsafeBufferPointer { (dig) throws(CryptoError) in
                try openSSLCheck(
                    EVP_PKEY_sign(context, sig.baseAddress, &length, dig.baseAddress, dig.count), "EVP_PKEY_sign")
            }
        }
        signature.removeSubrange(length...)
        return signature
    }
}
