internal import COpenSSL

/// A private key for the project's own test PKI: signs receipts and JWS minted by the forge.
///
/// RSA and EC keys come from PEM; an HMAC key wraps a secret (the forge's HS256 forgery). Never used on the
/// verification path. Owns its `EVP_PKEY`; `@unchecked Sendable` for the same reason as ``PublicKey``:
/// read-only after `init`, a fresh `EVP_PKEY_CTX` or `EVP_MD_CTX` per signature.
package final class PrivateKey: @unchecked Sendable {
    let pointer: OpaquePointer

    /// Parses a PEM private key (PKCS#8 or traditional RSA), unencrypted.
    package init(pem: String) throws(CryptoError) {
        let bio = try openSSLCheck(BIO_new(BIO_s_mem()), "BIO_new")
        defer { BIO_free(bio) }
        let bytes = Array(pem.utf8)
        let written = bytes.withUnsafeBytes { BIO_write(bio, $0.baseAddress, Int32($0.count)) }
        try openSSLCheck(written, "BIO_write")
        pointer = try openSSLCheck(
            PEM_read_bio_PrivateKey(bio, nil, nil, nil), "PEM_read_bio_PrivateKey", code: .invalidKey)
    }

    /// Wraps `secret` as an HMAC key (OpenSSL's `HMAC` key type), for ``signHS256(message:)``.
    ///
    /// The forge keys HS256 with a signer's public key bytes: the algorithm-confusion forgery a verifier that
    /// trusts the header's `alg` would accept.
    package init(hmacSecret secret: [UInt8]) throws(CryptoError) {
        guard !secret.isEmpty else { throw CryptoError(.invalidKey, "an HMAC secret needs at least one byte") }
        pointer = try openSSLCheck(
            secret.withUnsafeBufferPointer {
                EVP_PKEY_new_raw_private_key_ex(nil, "HMAC", nil, $0.baseAddress, $0.count)
            },
            "EVP_PKEY_new_raw_private_key_ex", code: .invalidKey)
    }

    deinit { EVP_PKEY_free(pointer) }

    /// The matching public key, as a DER `SubjectPublicKeyInfo`.
    package func subjectPublicKeyInfo() throws(CryptoError) -> [UInt8] {
        var out: UnsafeMutablePointer<UInt8>? = nil
        let length = i2d_PUBKEY(pointer, &out)
        guard length > 0, let out else { throw CryptoError.openSSL("i2d_PUBKEY") }
        defer { receipt_OPENSSL_free(out) }
        return Array(UnsafeBufferPointer(start: out, count: Int(length)))
    }

    /// Makes an RSA PKCS#1 v1.5 signature over an already computed digest.
    package func signRSAPKCS1(digest: [UInt8], algorithm: DigestAlgorithm) throws(CryptoError) -> [UInt8] {
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

    /// Makes an ES256 signature (RFC 7518 §3.4: ECDSA on P-256 with SHA-256) over `message`, a JWS signing input.
    ///
    /// OpenSSL writes the DER `ECDSA-Sig-Value` (RFC 3279 §2.2.3); JWS wants R and S as 32-byte big-endian
    /// integers, concatenated. ECDSA takes a fresh random nonce, so two signatures of the same message differ.
    /// - Returns: the 64-byte `R || S`.
    /// - Throws: ``CryptoError/Code/unsupportedAlgorithm`` when this is not an EC P-256 key.
    package func signES256(message: ArraySlice<UInt8>) throws(CryptoError) -> [UInt8] {
        guard EVP_PKEY_is_a(pointer, "EC") == 1, groupName == "prime256v1" else {
            throw CryptoError(.unsupportedAlgorithm, "ES256 needs an EC P-256 key")
        }
        let der = try digestSign(message)
        let signature = try der.withUnsafeBufferPointer { (buffer) throws(CryptoError) -> OpaquePointer in
            var cursor = buffer.baseAddress
            return try openSSLCheck(d2i_ECDSA_SIG(nil, &cursor, buffer.count), "d2i_ECDSA_SIG")
        }
        defer { ECDSA_SIG_free(signature) }
        var r: OpaquePointer? = nil
        var s: OpaquePointer? = nil
        ECDSA_SIG_get0(signature, &r, &s)
        var raw = [UInt8](repeating: 0, count: 64)
        let written = raw.withUnsafeMutableBufferPointer { out -> (Int32, Int32) in
            guard let base = out.baseAddress else { return (-1, -1) }
            return (BN_bn2binpad(r, base, 32), BN_bn2binpad(s, base + 32, 32))
        }
        // RFC 7518 §3.4: each integer as exactly 32 octets; -1 means it does not fit.
        guard written == (32, 32) else { throw CryptoError.openSSL("BN_bn2binpad") }
        return raw
    }

    /// Makes an HS256 tag (RFC 7518 §3.2: HMAC with SHA-256) over `message`; the key must come from
    /// ``init(hmacSecret:)``.
    package func signHS256(message: ArraySlice<UInt8>) throws(CryptoError) -> [UInt8] {
        guard EVP_PKEY_is_a(pointer, "HMAC") == 1 else {
            throw CryptoError(.unsupportedAlgorithm, "HS256 needs an HMAC key")
        }
        return try digestSign(message)
    }

    /// Makes an RS256 signature (RFC 7518 §3.3: RSASSA-PKCS1-v1_5 with SHA-256) over `message`.
    package func signRS256(message: ArraySlice<UInt8>) throws(CryptoError) -> [UInt8] {
        guard EVP_PKEY_is_a(pointer, "RSA") == 1 else {
            throw CryptoError(.unsupportedAlgorithm, "RS256 needs an RSA key")
        }
        return try digestSign(message)
    }

    /// The EC group's short name (`prime256v1` for P-256), or `nil` for other keys.
    private var groupName: String? {
        var name = [CChar](repeating: 0, count: 64)
        var length = 0
        guard EVP_PKEY_get_group_name(pointer, &name, name.count, &length) == 1 else {
            _ = CryptoError.drainErrorQueue()
            return nil
        }
        return String(decoding: name.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Hashes `message` with SHA-256 and signs it with this key's default scheme (ECDSA, HMAC, RSA PKCS#1 v1.5),
    /// in OpenSSL's one-shot `EVP_DigestSign`.
    private func digestSign(_ message: ArraySlice<UInt8>) throws(CryptoError) -> [UInt8] {
        let context = try openSSLCheck(EVP_MD_CTX_new(), "EVP_MD_CTX_new")
        defer { EVP_MD_CTX_free(context) }
        try openSSLCheck(
            EVP_DigestSignInit(context, nil, DigestAlgorithm.sha256.evpMD, nil, pointer), "EVP_DigestSignInit")
        var length = 0
        // With no output buffer, EVP_DigestSign only reports the largest signature length.
        try openSSLCheck(EVP_DigestSign(context, nil, &length, nil, 0), "EVP_DigestSign")
        var signature = [UInt8](repeating: 0, count: length)
        _ = try signature.withUnsafeMutableBufferPointer { (out) throws(CryptoError) in
            try message.withUnsafeBufferPointer { (input) throws(CryptoError) in
                try openSSLCheck(
                    EVP_DigestSign(context, out.baseAddress, &length, input.baseAddress, input.count), "EVP_DigestSign")
            }
        }
        signature.removeSubrange(length...)
        return signature
    }
}
