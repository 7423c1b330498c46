internal import COpenSSL
internal import Synchronization

/// A public key parsed once by OpenSSL and reused for every signature check.
///
/// Owns its `EVP_PKEY` and a small pool of verification contexts. `@unchecked Sendable`: after `init`
/// the key is only read, and OpenSSL 3 documents `EVP_PKEY` as safe for concurrent read-only use; each
/// `EVP_PKEY_CTX` is used by one thread at a time (taken from the pool under its mutex, or made fresh).
public final class PublicKey: @unchecked Sendable {
    let pointer: OpaquePointer

    /// Initialised RSA verification contexts, per digest, ready for another `EVP_PKEY_verify`.
    ///
    /// `EVP_PKEY_CTX_new` + `EVP_PKEY_verify_init` fetch the signature implementation by name, which takes
    /// locks in OpenSSL 3.0 and costs a few µs per receipt; reusing contexts leaves only the RSA math.
    private let contextPool = Mutex<[DigestAlgorithm: [ContextPointer]]>([:])
    /// How many idle contexts are kept per digest (about one per core verifying concurrently).
    private static let pooledContextLimit = 16

    /// An `EVP_PKEY_CTX` owned by the pool. `@unchecked Sendable`: only ever used by the thread that
    /// took it out of the pool.
    private struct ContextPointer: @unchecked Sendable {
        let pointer: OpaquePointer
    }

    /// Parses a DER `SubjectPublicKeyInfo`.
    public init(subjectPublicKeyInfo der: ArraySlice<UInt8>) throws(CryptoError) {
        let parsed: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            var cursor = buffer.baseAddress
            return d2i_PUBKEY(nil, &cursor, buffer.count)
        }
        pointer = try openSSLCheck(parsed, "d2i_PUBKEY", code: .invalidKey)
    }

    /// Takes ownership of an `EVP_PKEY` reference the caller already holds.
    init(owning pointer: OpaquePointer) {
        self.pointer = pointer
    }

    deinit {
        contextPool.withLock { pool in
            for contexts in pool.values { for context in contexts { EVP_PKEY_CTX_free(context.pointer) } }
        }
        EVP_PKEY_free(pointer)
    }

    /// `true` when this is an RSA key.
    public var isRSA: Bool { EVP_PKEY_get_base_id(pointer) == EVP_PKEY_RSA }

    /// The key size in bits.
    public var bitCount: Int { Int(EVP_PKEY_get_bits(pointer)) }

    /// The bit length of an RSA key's public exponent (17 for 65537); `nil` for other keys.
    ///
    /// An RSA verification costs about one modular multiplication per exponent bit, and OpenSSL accepts any
    /// exponent below the modulus: a 2048-bit exponent makes one check ~100 times dearer than 65537 does.
    /// Verifiers bound it before they check a signature with a key that came from outside.
    public var rsaPublicExponentBitCount: Int? {
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
    public func verifyRSAPKCS1(
        signature: ArraySlice<UInt8>, digest: [UInt8], algorithm: DigestAlgorithm
    ) throws(CryptoError) -> Bool {
        guard isRSA else { throw CryptoError(.unsupportedAlgorithm, "the signer key is not an RSA key") }
        let pooled = contextPool.withLock { $0[algorithm]?.popLast() }
        let context: OpaquePointer
        if let pooled {
            context = pooled.pointer
        } else {
            context = try makeRSAVerifyContext(algorithm)
        }
        let result = signature.withUnsafeBufferPointer { sig in
            digest.withUnsafeBufferPointer { dig in
                EVP_PKEY_verify(context, sig.baseAddress, sig.count, dig.baseAddress, dig.count)
            }
        }
        // 1 = match; 0 = mismatch; negative = malformed signature. Only a match counts.
        if result == 1 {
            // Only a context whose last use succeeded goes back; one that saw an error is discarded.
            let kept = contextPool.withLock { pool in
                guard pool[algorithm, default: []].count < Self.pooledContextLimit else { return false }
                pool[algorithm, default: []].append(ContextPointer(pointer: context))
                return true
            }
            if !kept { EVP_PKEY_CTX_free(context) }
        } else {
            EVP_PKEY_CTX_free(context)
            _ = CryptoError.drainErrorQueue()
        }
        return result == 1
    }

    /// A fresh context set up for RSA PKCS#1 v1.5 verification with `algorithm`.
    private func makeRSAVerifyContext(_ algorithm: DigestAlgorithm) throws(CryptoError) -> OpaquePointer {
        let context = try openSSLCheck(EVP_PKEY_CTX_new(pointer, nil), "EVP_PKEY_CTX_new")
        do {
            try openSSLCheck(EVP_PKEY_verify_init(context), "EVP_PKEY_verify_init")
            try openSSLCheck(EVP_PKEY_CTX_set_rsa_padding(context, RSA_PKCS1_PADDING), "EVP_PKEY_CTX_set_rsa_padding")
            try openSSLCheck(EVP_PKEY_CTX_set_signature_md(context, algorithm.evpMD), "EVP_PKEY_CTX_set_signature_md")
        } catch {
            EVP_PKEY_CTX_free(context)
            throw error
        }
        return context
    }
}
