internal import COpenSSL
internal import Synchronization

/// A public key parsed once by OpenSSL and reused for every signature check.
///
/// Owns its `EVP_PKEY` and a small pool of verification contexts. `@unchecked Sendable`: after `init`
/// the key is only read, and OpenSSL 3 documents `EVP_PKEY` as safe for concurrent read-only use; each
/// `EVP_PKEY_CTX` is used by one thread at a time (taken from the pool under its mutex, or made fresh).
package final class PublicKey: @unchecked Sendable {
    let pointer: OpaquePointer

    /// Initialised verification contexts, per scheme, ready for another `EVP_PKEY_verify`.
    ///
    /// `EVP_PKEY_CTX_new` + `EVP_PKEY_verify_init` fetch the signature implementation by name, which takes
    /// locks in OpenSSL 3.0 and costs a few µs per receipt; reusing contexts leaves only the RSA math.
    private let contextPool = Mutex<[Scheme: [ContextPointer]]>([:])
    /// What a pooled context is set up to verify.
    enum Scheme: Hashable {
        case rsaPKCS1(DigestAlgorithm)
        /// ECDSA over a SHA-256 digest.
        case sha256ECDSA
    }
    /// How many idle contexts are kept per digest (about one per core verifying concurrently).
    private static let pooledContextLimit = 16

    /// An `EVP_PKEY_CTX` owned by the pool. `@unchecked Sendable`: only ever used by the thread that
    /// took it out of the pool.
    private struct ContextPointer: @unchecked Sendable {
        let pointer: OpaquePointer
    }

    /// The library context the key was decoded in (``DecodingContext``; `nil` for OpenSSL's default), where its
    /// verification contexts fetch their algorithms: set up anywhere else, each would first copy the key there.
    let libraryContext: OpaquePointer?

    /// Parses a DER `SubjectPublicKeyInfo`, in the calling thread's ``DecodingContext``.
    package init(subjectPublicKeyInfo der: ArraySlice<UInt8>) throws(CryptoError) {
        let context = DecodingContext.current
        let parsed: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            var cursor = buffer.baseAddress
            return d2i_PUBKEY_ex(nil, &cursor, buffer.count, context, nil)
        }
        pointer = try openSSLCheck(parsed, "d2i_PUBKEY_ex", code: .invalidKey)
        libraryContext = context
    }

    /// Takes ownership of an `EVP_PKEY` reference the caller already holds, decoded in `libraryContext`.
    init(owning pointer: OpaquePointer, libraryContext: OpaquePointer?) {
        self.pointer = pointer
        self.libraryContext = libraryContext
    }

    deinit {
        contextPool.withLock { pool in
            for contexts in pool.values { for context in contexts { EVP_PKEY_CTX_free(context.pointer) } }
        }
        EVP_PKEY_free(pointer)
    }

    /// `true` when this is an RSA key.
    package var isRSA: Bool { EVP_PKEY_get_base_id(pointer) == EVP_PKEY_RSA }

    /// The named curve of an elliptic-curve key as OpenSSL calls it (`prime256v1`, `secp384r1`); `nil` for
    /// other keys.
    package var curveName: String? {
        guard EVP_PKEY_get_base_id(pointer) == EVP_PKEY_EC else { return nil }
        var name = [CChar](repeating: 0, count: 64)
        var length = 0
        let found = name.withUnsafeMutableBufferPointer { buffer in
            EVP_PKEY_get_utf8_string_param(
                pointer, OSSL_PKEY_PARAM_GROUP_NAME, buffer.baseAddress, buffer.count, &length)
        }
        guard found == 1, length < name.count else {
            _ = CryptoError.drainErrorQueue()
            return nil
        }
        return String(decoding: name.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// `true` when this is a key on P-256, the only curve of ES256 (RFC 7518 §3.4).
    package var isP256: Bool { curveName == "prime256v1" }

    /// The key size in bits.
    package var bitCount: Int { Int(EVP_PKEY_get_bits(pointer)) }

    /// The bit length of an RSA key's public exponent (17 for 65537); `nil` for other keys.
    ///
    /// An RSA verification costs about one modular multiplication per exponent bit, and OpenSSL accepts any
    /// exponent below the modulus: a 2048-bit exponent makes one check ~100 times dearer than 65537 does.
    /// Verifiers bound it before they check a signature with a key that came from outside.
    package var rsaPublicExponentBitCount: Int? {
        guard isRSA else { return nil }
        var exponent: OpaquePointer? = nil
        guard EVP_PKEY_get_bn_param(pointer, OSSL_PKEY_PARAM_RSA_E, &exponent) == 1, let exponent else {
            _ = CryptoError.drainErrorQueue()
            return nil
        }
        defer { BN_free(exponent) }
        return Int(BN_num_bits(exponent))
    }

    /// Checks an RSA PKCS#1 v1.5 signature over an already computed digest.
    ///
    /// - Parameters:
    ///   - signature: the signature bytes.
    ///   - digest: the digest of the signed bytes, computed with `algorithm`.
    ///   - algorithm: the digest algorithm named in the DigestInfo the signature wraps.
    /// - Returns: `true` when the signature matches; `false` for any mismatch.
    /// - Throws: only when OpenSSL cannot set up the check (not an RSA key, allocation failure).
    package func verifyRSAPKCS1(
        signature: ArraySlice<UInt8>, digest: [UInt8], algorithm: DigestAlgorithm
    ) throws(CryptoError) -> Bool {
        guard isRSA else { throw CryptoError(.unsupportedAlgorithm, "the signer key is not an RSA key") }
        let scheme = Scheme.rsaPKCS1(algorithm)
        let pooled = contextPool.withLock { $0[scheme]?.popLast() }
        let context: OpaquePointer
        if let pooled { context = pooled.pointer } else { context = try makeVerifyContext(scheme) }
        let result = signature.withUnsafeBufferPointer { sig in
            digest.withUnsafeBufferPointer { dig in
                EVP_PKEY_verify(context, sig.baseAddress, sig.count, dig.baseAddress, dig.count)
            }
        }
        recycle(context, scheme, succeeded: result == 1)
        return result == 1
    }

    /// Returns a context to the pool after a check. 1 = match; 0 = mismatch; negative = malformed signature:
    /// only a context whose last use succeeded goes back; one that saw an error is discarded.
    private func recycle(_ context: OpaquePointer, _ scheme: Scheme, succeeded: Bool) {
        if succeeded {
            let kept = contextPool.withLock { pool in
                guard pool[scheme, default: []].count < Self.pooledContextLimit else { return false }
                pool[scheme, default: []].append(ContextPointer(pointer: context))
                return true
            }
            if !kept { EVP_PKEY_CTX_free(context) }
        } else {
            EVP_PKEY_CTX_free(context)
            _ = CryptoError.drainErrorQueue()
        }
    }

    /// Checks an ES256 signature (RFC 7518 §3.4: ECDSA on P-256 with SHA-256) over `message`.
    ///
    /// - Parameters:
    ///   - signature: the JWS form, R and S as 32-byte big-endian integers, concatenated (64 bytes).
    ///   - message: the signed bytes (a JWS signing input).
    /// - Returns: `true` when the signature matches; `false` for any mismatch, any other length, or an R or S
    ///   that is zero or not below the group order.
    /// - Throws: only when OpenSSL cannot set up the check (not a P-256 key, allocation failure).
    package func verifyES256(signature: ArraySlice<UInt8>, message: ArraySlice<UInt8>) throws(CryptoError) -> Bool {
        guard isP256 else { throw CryptoError(.unsupportedAlgorithm, "the signer key is not an EC P-256 key") }
        guard signature.count == 64 else { return false }
        let digest = try DigestAlgorithm.sha256.hash(message)
        let der = try Self.derECDSASignature(r: signature.prefix(32), s: signature.suffix(32))
        let pooled = contextPool.withLock { $0[Scheme.sha256ECDSA]?.popLast() }
        let context: OpaquePointer
        if let pooled { context = pooled.pointer } else { context = try makeVerifyContext(.sha256ECDSA) }
        let result = der.withUnsafeBufferPointer { sig in
            digest.withUnsafeBufferPointer { dig in
                EVP_PKEY_verify(context, sig.baseAddress, sig.count, dig.baseAddress, dig.count)
            }
        }
        recycle(context, .sha256ECDSA, succeeded: result == 1)
        return result == 1
    }

    /// The DER `ECDSA-Sig-Value` (RFC 3279 §2.2.3) of R and S, encoded by OpenSSL.
    private static func derECDSASignature(r: ArraySlice<UInt8>, s: ArraySlice<UInt8>) throws(CryptoError) -> [UInt8] {
        let signature = try openSSLCheck(ECDSA_SIG_new(), "ECDSA_SIG_new")
        defer { ECDSA_SIG_free(signature) }
        let rNumber = r.withUnsafeBufferPointer { BN_bin2bn($0.baseAddress, Int32($0.count), nil) }
        let sNumber = s.withUnsafeBufferPointer { BN_bin2bn($0.baseAddress, Int32($0.count), nil) }
        guard let rNumber, let sNumber, ECDSA_SIG_set0(signature, rNumber, sNumber) == 1 else {
            BN_free(rNumber)
            BN_free(sNumber)
            throw CryptoError.openSSL("ECDSA_SIG_set0")
        }
        var out: UnsafeMutablePointer<UInt8>? = nil
        let length = i2d_ECDSA_SIG(signature, &out)
        guard length > 0, let out else { throw CryptoError.openSSL("i2d_ECDSA_SIG") }
        defer { receipt_OPENSSL_free(out) }
        return Array(UnsafeBufferPointer(start: out, count: Int(length)))
    }

    /// A fresh context set up for `scheme`.
    func makeVerifyContext(_ scheme: Scheme) throws(CryptoError) -> OpaquePointer {
        let context = try openSSLCheck(
            EVP_PKEY_CTX_new_from_pkey(libraryContext, pointer, nil), "EVP_PKEY_CTX_new_from_pkey")
        do {
            try openSSLCheck(EVP_PKEY_verify_init(context), "EVP_PKEY_verify_init")
            switch scheme {
            case .rsaPKCS1(let algorithm):
                try openSSLCheck(
                    EVP_PKEY_CTX_set_rsa_padding(context, RSA_PKCS1_PADDING), "EVP_PKEY_CTX_set_rsa_padding")
                try openSSLCheck(
                    EVP_PKEY_CTX_set_signature_md(context, algorithm.evpMD), "EVP_PKEY_CTX_set_signature_md")
            case .sha256ECDSA:
                try openSSLCheck(
                    EVP_PKEY_CTX_set_signature_md(context, DigestAlgorithm.sha256.evpMD),
                    "EVP_PKEY_CTX_set_signature_md")
            }
        } catch {
            EVP_PKEY_CTX_free(context)
            throw error
        }
        return context
    }
}
