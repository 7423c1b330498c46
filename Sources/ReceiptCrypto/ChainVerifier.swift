internal import COpenSSL

/// Validates a certificate path with OpenSSL's `X509_verify_cert` (RFC 5280 §6) against explicit anchors
/// at an explicit instant.
///
/// Exists so verification never depends on a system trust store or the wall clock: the caller names
/// the anchors and the time. The purpose check is "any" (Xcode's StoreKit certificate carries extended
/// key usage code signing, and Apple's receipt leaves are not S/MIME certificates), and partial chains
/// are not accepted: a path must end at one of `anchors`.
package enum ChainVerifier {
    /// Validates `leaf` through `intermediates` up to one of `anchors` at `time`.
    ///
    /// - Parameters:
    ///   - leaf: the end-entity certificate.
    ///   - intermediates: untrusted certificates OpenSSL may use to build the path (order does not matter;
    ///     anchors in it are harmless).
    ///   - anchors: the only trusted certificates.
    ///   - time: the validation instant, in seconds since 1970; `nil` checks everything but validity periods
    ///     (`X509_V_FLAG_NO_CHECK_TIME`), for a receipt that names no instant: what can be decided still is.
    /// - Returns: the outcome; a failed validation is a value, not an error.
    /// - Throws: only when OpenSSL cannot set up the check (allocation failure).
    package static func verify(
        leaf: Certificate, intermediates: [Certificate], anchors: [Certificate], at time: Int64?
    ) throws(CryptoError) -> ChainVerificationResult {
        let store = try openSSLCheck(X509_STORE_new(), "X509_STORE_new")
        defer { X509_STORE_free(store) }
        for anchor in anchors {
            // X509_STORE_add_cert takes its own reference.
            try openSSLCheck(X509_STORE_add_cert(store, anchor.pointer), "X509_STORE_add_cert")
        }
        let untrusted = try openSSLCheck(receipt_sk_X509_new_null(), "sk_X509_new_null")
        // The stack borrows the pointers: the Certificate objects own them and outlive this call.
        defer { receipt_sk_X509_free(untrusted) }
        for certificate in intermediates {
            try openSSLCheck(receipt_sk_X509_push(untrusted, certificate.pointer), "sk_X509_push")
        }
        let context = try openSSLCheck(X509_STORE_CTX_new(), "X509_STORE_CTX_new")
        defer { X509_STORE_CTX_free(context) }
        try openSSLCheck(X509_STORE_CTX_init(context, store, leaf.pointer, untrusted), "X509_STORE_CTX_init")
        try openSSLCheck(X509_STORE_CTX_set_purpose(context, X509_PURPOSE_ANY), "X509_STORE_CTX_set_purpose")
        let parameters = try openSSLCheck(X509_STORE_CTX_get0_param(context), "X509_STORE_CTX_get0_param")
        if let time {
            // set_time also raises X509_V_FLAG_USE_CHECK_TIME; set explicitly so the intent is visible.
            X509_VERIFY_PARAM_set_time(parameters, time_t(time))
            try openSSLCheck(
                X509_VERIFY_PARAM_set_flags(parameters, UInt(X509_V_FLAG_USE_CHECK_TIME)), "X509_VERIFY_PARAM_set_flags"
            )
        } else {
            // Never the wall clock: without an instant, validity periods are not checked at all.
            try openSSLCheck(
                X509_VERIFY_PARAM_set_flags(parameters, UInt(X509_V_FLAG_NO_CHECK_TIME)), "X509_VERIFY_PARAM_set_flags")
        }
        try openSSLCheck(
            X509_VERIFY_PARAM_clear_flags(parameters, UInt(X509_V_FLAG_PARTIAL_CHAIN)),
            "X509_VERIFY_PARAM_clear_flags")

        let known = [leaf] + intermediates + anchors
        let verified = withExtendedLifetime(known) { X509_verify_cert(context) }
        // A result below 0 is a setup failure, not a verdict about the chain.
        guard verified >= 0 else { throw CryptoError.openSSL("X509_verify_cert") }
        _ = CryptoError.drainErrorQueue()

        var chain: [Certificate] = []
        if let built = X509_STORE_CTX_get0_chain(context) {
            let count = receipt_sk_X509_num(built)
            if count > 0 {
                for index in 0..<count {
                    let x509 = receipt_sk_X509_value(built, index)
                    if let match = known.first(where: { $0.pointer == x509 }) { chain.append(match) }
                }
            }
        }
        let error = X509_STORE_CTX_get_error(context)
        if verified == 1 && error == X509_V_OK {
            return ChainVerificationResult(failure: nil, depth: 0, openSSLError: 0, message: "ok", chain: chain)
        }
        let depth = Int(X509_STORE_CTX_get_error_depth(context))
        var text = X509_verify_cert_error_string(Int(error)).map { String(cString: $0) } ?? "error \(error)"
        var kind = failure(for: error)
        if kind == .issuerMissing, let stuck = chain.last {
            // "Missing" must mean absent. Matching by name (RFC 5280 §6.1.3 (a)(4)) as a path builder would:
            let named = known.filter { $0 !== stuck && $0.subjectDER == stuck.issuerDER }
            if named.contains(where: { stuck.isSigned(by: $0) }) {
                // Present and signed, yet OpenSSL passed it over (its key identifier is not the one the
                // certificate names, say): refused, not missing.
                kind = .other
                text += "; a certificate named as its issuer signed it but was not accepted as an issuer"
            } else if !named.isEmpty {
                // OpenSSL 3's issuer lookup already checks signatures, so a present issuer that did not sign
                // reads as "issuer not found": it is a bad signature.
                kind = .invalidSignature
                text += "; a certificate named as its issuer is present but its key does not verify the signature"
            }
        }
        return ChainVerificationResult(failure: kind, depth: depth, openSSLError: error, message: text, chain: chain)
    }

    /// Maps `X509_V_ERR_*` to the kinds a verdict distinguishes.
    static func failure(for error: Int32) -> ChainVerificationResult.Failure {
        switch error {
        case X509_V_ERR_CERT_HAS_EXPIRED:
            .expired
        case X509_V_ERR_CERT_NOT_YET_VALID:
            .notYetValid
        // The issuer of the last certificate found is neither given nor an anchor (the path stops short of
        // any self-signed certificate): what is missing may be genuine, so this is not an untrusted root.
        case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT, X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY,
            X509_V_ERR_UNABLE_TO_VERIFY_LEAF_SIGNATURE:
            .issuerMissing
        // The path ends at a self-signed certificate that is not an anchor.
        case X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT, X509_V_ERR_SELF_SIGNED_CERT_IN_CHAIN, X509_V_ERR_CERT_UNTRUSTED,
            X509_V_ERR_CERT_REJECTED:
            .untrustedRoot
        case X509_V_ERR_CERT_SIGNATURE_FAILURE, X509_V_ERR_UNABLE_TO_DECRYPT_CERT_SIGNATURE,
            X509_V_ERR_UNABLE_TO_DECODE_ISSUER_PUBLIC_KEY:
            .invalidSignature
        case X509_V_ERR_INVALID_CA, X509_V_ERR_PATH_LENGTH_EXCEEDED, X509_V_ERR_INVALID_NON_CA,
            X509_V_ERR_KEYUSAGE_NO_CERTSIGN:
            .notACA
        default:
            .other
        }
    }
}
