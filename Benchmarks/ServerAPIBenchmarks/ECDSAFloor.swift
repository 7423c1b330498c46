// The floor of the App Store Server API suite: what OpenSSL itself needs to check one ES256 signature, measured in
// the same process as the client's steps.
//
// Every signed item the client receives costs at least one ECDSA P-256 verification plus a SHA-256 of its signing
// input. Measured the cheapest way OpenSSL offers, as scripts/bench-jws's raw row (crypto-engines, mode `jws`)
// measures it: the leaf's key parsed once, one EVP_PKEY_CTX initialised once and reused, SHA-256 fetched once.

import CBenchOpenSSL
import Foundation

/// The leaf key of one compact JWS, a reused verification context, its signing input and its signature (DER).
///
/// `@unchecked Sendable`: one instance is created per benchmark setup and used by that benchmark's single measuring
/// thread only; OpenSSL contexts must not be shared between threads.
final class ECDSAFloor: @unchecked Sendable {
    private let md: OpaquePointer
    private let key: OpaquePointer
    private let context: OpaquePointer
    private let signingInput: [UInt8]
    private let signature: [UInt8]
    /// The output buffer of the digest, allocated once so that the floor itself does not allocate.
    private let digestBuffer = UnsafeMutablePointer<UInt8>.allocate(capacity: Int(EVP_MAX_MD_SIZE))

    /// Sets up the floor for `jws` (compact serialization, its leaf certificate first in the header's `x5c`).
    init(jws: String) {
        let segments = jws.split(separator: ".", omittingEmptySubsequences: false)
        guard segments.count == 3, let header = base64URL(segments[0]),
            let object = try? JSONSerialization.jsonObject(with: Data(header)) as? [String: Any],
            let chain = object["x5c"] as? [String], let leafText = chain.first,
            let leaf = Data(base64Encoded: leafText), let rs = base64URL(segments[2]), rs.count == 64
        else { fatalError("not a compact JWS with an x5c leaf and an ES256 signature") }
        // Copies: the floor owns its inputs.
        signingInput = Array(segments[0].utf8) + [UInt8(ascii: ".")] + Array(segments[1].utf8)
        signature = Self.derSignature(rs)
        guard let md = EVP_MD_fetch(nil, "SHA256", nil) else { fatalError("OpenSSL has no SHA256") }
        self.md = md
        let parsed: OpaquePointer? = Array(leaf).withUnsafeBufferPointer { buffer in
            var cursor = buffer.baseAddress
            guard let x509 = d2i_X509(nil, &cursor, buffer.count) else { return nil }
            defer { X509_free(x509) }
            return X509_get_pubkey(x509)
        }
        guard let parsed else { fatalError("the x5c leaf has no public key") }
        key = parsed
        guard let context = EVP_PKEY_CTX_new(parsed, nil), EVP_PKEY_verify_init(context) == 1,
            EVP_PKEY_CTX_set_signature_md(context, md) == 1
        else { fatalError("cannot set up an ECDSA verification context") }
        self.context = context
        precondition(digestAndVerify(), "the reused context does not verify the JWS's signature")
    }

    deinit {
        EVP_PKEY_CTX_free(context)
        EVP_PKEY_free(key)
        EVP_MD_free(md)
        digestBuffer.deallocate()
    }

    /// SHA-256 of the signing input, then one ECDSA P-256 verification on the reused context.
    @inline(never)
    func digestAndVerify() -> Bool {
        var length: UInt32 = 0
        let digested = signingInput.withUnsafeBytes { input in
            EVP_Digest(input.baseAddress, input.count, digestBuffer, &length, md, nil) == 1
        }
        guard digested else { return false }
        return signature.withUnsafeBufferPointer { sig in
            EVP_PKEY_verify(context, sig.baseAddress, sig.count, digestBuffer, Int(length)) == 1
        }
    }

    /// JWS's r ‖ s (RFC 7518 §3.4) as the DER ECDSA-Sig-Value that EVP_PKEY_verify takes.
    private static func derSignature(_ rs: [UInt8]) -> [UInt8] {
        guard let sig = ECDSA_SIG_new() else { fatalError("ECDSA_SIG_new") }
        defer { ECDSA_SIG_free(sig) }
        let r = rs.withUnsafeBufferPointer { BN_bin2bn($0.baseAddress, 32, nil) }
        let s = rs.withUnsafeBufferPointer { BN_bin2bn($0.baseAddress.map { $0 + 32 }, 32, nil) }
        guard let r, let s, ECDSA_SIG_set0(sig, r, s) == 1 else { fatalError("ECDSA_SIG_set0") }
        var out: UnsafeMutablePointer<UInt8>?
        let length = i2d_ECDSA_SIG(sig, &out)
        guard length > 0, let out else { fatalError("i2d_ECDSA_SIG") }
        defer { CRYPTO_free(out, nil, 0) }  // OPENSSL_free, a macro Swift does not import
        return Array(UnsafeBufferPointer(start: out, count: Int(length)))
    }
}

/// Base64url without padding (RFC 7515 §2), decoded.
func base64URL(_ text: Substring) -> [UInt8]? {
    var standard = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
    standard += String(repeating: "=", count: (4 - standard.count % 4) % 4)
    return Data(base64Encoded: standard).map(Array.init)
}
