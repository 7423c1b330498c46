// The floor: what OpenSSL itself needs for one receipt, measured in the same process as the suites.
//
// A verified receipt cannot cost less than one RSA signature verification plus one digest of the signed
// payload (docs/verification.md, "Where the time goes"). Both are measured here the cheapest way OpenSSL offers:
// the signer's key parsed once, one EVP_PKEY_CTX initialised once and reused (as `openssl speed rsa2048`
// measures), the digest implementation fetched once.

import CBenchOpenSSL
import ReceiptModel

/// The signer's key, a reused verification context, the receipt's signature and the digest of its payload.
///
/// `@unchecked Sendable`: one instance is created per benchmark setup and used by that benchmark's single
/// measuring thread only; OpenSSL contexts must not be shared between threads.
final class OpenSSLFloor: @unchecked Sendable {
    let digestName: String
    let keyBits: Int32
    private let md: OpaquePointer
    private let key: OpaquePointer
    private let context: OpaquePointer
    private let payload: [UInt8]
    private let signature: [UInt8]
    private let digest: [UInt8]
    /// The output buffer of `digestPayload()`, allocated once so that the floor itself does not allocate.
    private let digestBuffer = UnsafeMutablePointer<UInt8>.allocate(capacity: Int(EVP_MAX_MD_SIZE))

    /// Sets up the floor for `receipt`'s only signer.
    init(_ receipt: AppReceipt) {
        let signer = receipt.signedData.signerInfos[0]
        // 1.3.14.3.2.26 is SHA-1 (older Apple receipts); everything else Apple signs is SHA-256.
        digestName = signer.digestAlgorithm.algorithm.description == "1.3.14.3.2.26" ? "SHA1" : "SHA256"
        guard let md = EVP_MD_fetch(nil, digestName, nil) else { fatalError("OpenSSL has no \(digestName)") }
        self.md = md
        // Copies: the floor owns its inputs, so nothing in it depends on the decoded receipt's storage.
        payload = Array(receipt.signedData.eContent)
        signature = Array(signer.signature)
        var out = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        payload.withUnsafeBytes { input in _ = EVP_Digest(input.baseAddress, input.count, &out, &length, md, nil) }
        digest = Array(out.prefix(Int(length)))

        // The signer's key: the embedded certificate whose key verifies the signature.
        var found: OpaquePointer?
        for der in receipt.signedData.certificates {
            let candidate: OpaquePointer? = Array(der).withUnsafeBufferPointer { buffer in
                var cursor = buffer.baseAddress
                guard let x509 = d2i_X509(nil, &cursor, buffer.count) else { return nil }
                defer { X509_free(x509) }
                return X509_get_pubkey(x509)
            }
            guard let candidate else { continue }
            if Self.verify(key: candidate, md: md, signature: signature, digest: digest) {
                found = candidate
                break
            }
            EVP_PKEY_free(candidate)
        }
        guard let found else { fatalError("no embedded certificate verifies the receipt's signature") }
        key = found
        keyBits = EVP_PKEY_get_bits(found)
        guard let context = EVP_PKEY_CTX_new(found, nil), EVP_PKEY_verify_init(context) == 1,
            EVP_PKEY_CTX_set_rsa_padding(context, RSA_PKCS1_PADDING) == 1,
            EVP_PKEY_CTX_set_signature_md(context, md) == 1
        else { fatalError("cannot set up an RSA verification context") }
        self.context = context
        precondition(verifySignature(), "the reused context does not verify the signature")
    }

    deinit {
        EVP_PKEY_CTX_free(context)
        EVP_PKEY_free(key)
        EVP_MD_free(md)
        digestBuffer.deallocate()
    }

    /// One RSA PKCS#1 v1.5 verification of the precomputed digest on the reused context.
    @inline(never)
    func verifySignature() -> Bool {
        signature.withUnsafeBufferPointer { sig in
            digest.withUnsafeBufferPointer { dgst in
                EVP_PKEY_verify(context, sig.baseAddress, sig.count, dgst.baseAddress, dgst.count) == 1
            }
        }
    }

    /// One digest of the payload (the receipt's eContent) with the pre-fetched implementation.
    @inline(never)
    func digestPayload() -> UInt8 {
        var length: UInt32 = 0
        payload.withUnsafeBytes { input in
            _ = EVP_Digest(input.baseAddress, input.count, digestBuffer, &length, md, nil)
        }
        return digestBuffer[0]
    }

    /// The size of the signed payload, for the report.
    var payloadCount: Int { payload.count }

    private static func verify(key: OpaquePointer, md: OpaquePointer, signature: [UInt8], digest: [UInt8]) -> Bool {
        guard let context = EVP_PKEY_CTX_new(key, nil) else { return false }
        defer { EVP_PKEY_CTX_free(context) }
        guard EVP_PKEY_verify_init(context) == 1, EVP_PKEY_CTX_set_rsa_padding(context, RSA_PKCS1_PADDING) == 1,
            EVP_PKEY_CTX_set_signature_md(context, md) == 1
        else { return false }
        return EVP_PKEY_verify(context, signature, signature.count, digest, digest.count) == 1
    }
}
