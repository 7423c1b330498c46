internal import COpenSSL

/// OpenSSL's one-time setup, done when a caller chooses rather than inside the first certificate or digest.
package enum CryptoLibrary {
    /// Loads OpenSSL's configuration and providers, fetches the digests (``DigestAlgorithm``) and readies the
    /// decoders of a certificate's RSA public key in the library context the next thread will decode certificates
    /// in (``DecodingContext``): what the first certificate read would otherwise do (BENCHMARKS.md, "Tenth
    /// session"). Readying a context per core instead made a one-receipt `verify-local` 0.9 ms slower and no run
    /// faster ("Sixteenth session"); other threads ready theirs on their first certificate. For a command with a
    /// core to spare while it parses its arguments. Safe from any thread, any number of times, beside any other use
    /// of OpenSSL; it leaves the thread's error queue as it found it.
    /// - Returns: whether OpenSSL found decoders for such a key; `false` leaves them to the first certificate,
    ///   which then fails or succeeds exactly as without this call.
    @discardableResult
    package static func prepare() -> Bool {
        // The first fetch initializes OpenSSL with its configuration, as any first call into it would.
        _ = DigestAlgorithm.sha256.evpMD
        // Without a context of its own (FIPS mode, say), a thread decodes in the default context.
        return readyRSAKeyDecoders(in: DecodingContext.prepareNext())
    }

    /// Fetches into `context`'s method store the decoders `d2i_X509` asks for, with the same arguments, for a
    /// certificate's SubjectPublicKeyInfo with an RSA key (it names the type by the key's algorithm,
    /// `rsaEncryption`), by asking for them once. Asking for every type's instead costs 0.4 ms more CPU for no
    /// further gain.
    private static func readyRSAKeyDecoders(in context: OpaquePointer?) -> Bool {
        ERR_set_mark()
        defer { ERR_pop_to_mark() }
        var key: OpaquePointer?
        guard
            let decoder = OSSL_DECODER_CTX_new_for_pkey(
                &key, "DER", "SubjectPublicKeyInfo", "rsaEncryption", receipt_EVP_PKEY_PUBLIC_KEY(), context, nil)
        else { return false }
        let found = OSSL_DECODER_CTX_get_num_decoders(decoder)
        OSSL_DECODER_CTX_free(decoder)
        EVP_PKEY_free(key)  // nothing was decoded, so nothing to free; freed in case a future OpenSSL makes one
        return found > 0
    }
}
