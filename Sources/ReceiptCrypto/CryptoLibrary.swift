internal import COpenSSL

/// OpenSSL's one-time setup, done when a caller chooses rather than inside the first certificate or digest.
package enum CryptoLibrary {
    /// Loads OpenSSL's configuration and providers, fetches the digests (``DigestAlgorithm``) and readies the
    /// decoders of a certificate's public key: what the first certificate read would otherwise do, about a millisecond
    /// more than each later one (BENCHMARKS.md, "Tenth session"). For a command with a core to spare while it parses
    /// its arguments. Safe from any thread, any number of times, beside any other use of OpenSSL; it queues no error.
    package static func prepare() {
        // The first fetch initializes OpenSSL with its configuration, as any first call into it would.
        _ = DigestAlgorithm.sha256.evpMD
        // The decoders `d2i_X509` asks for each certificate's SubjectPublicKeyInfo, fetched into OpenSSL's method
        // store by asking for them once. For RSA keys, an app receipt's: asking for any type's builds every type's
        // decoders, which cost more than the first certificate saves.
        var key: OpaquePointer?
        if let decoder = OSSL_DECODER_CTX_new_for_pkey(
            &key, "DER", "SubjectPublicKeyInfo", "RSA", receipt_EVP_PKEY_PUBLIC_KEY(), nil, nil)
        {
            OSSL_DECODER_CTX_free(decoder)
        }
    }
}
