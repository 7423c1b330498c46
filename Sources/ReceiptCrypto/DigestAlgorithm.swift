internal import COpenSSL

/// A message digest the receipt formats use, with its OpenSSL implementation fetched once.
///
/// Fetching by name takes locks inside OpenSSL 3.0, so each algorithm is fetched a single time per
/// process and the `EVP_MD` reused for every receipt.
package enum DigestAlgorithm: String, Sendable, Hashable, CaseIterable {
    case sha1
    case sha256
    case sha384
    case sha512

    /// The digest length in bytes.
    package var byteCount: Int {
        switch self {
        case .sha1: 20
        case .sha256: 32
        case .sha384: 48
        case .sha512: 64
        }
    }

    /// The `EVP_MD` for this algorithm. Fetched once; OpenSSL keeps fetched methods alive for the
    /// life of the process, so the pointers are never freed.
    var evpMD: OpaquePointer {
        switch self {
        case .sha1: FetchedDigests.shared.sha1
        case .sha256: FetchedDigests.shared.sha256
        case .sha384: FetchedDigests.shared.sha384
        case .sha512: FetchedDigests.shared.sha512
        }
    }

    /// Hashes `bytes` in one call.
    package func hash(_ bytes: ArraySlice<UInt8>) throws(CryptoError) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let md = evpMD
        let ok: Int32 = bytes.withUnsafeBytes { input in
            output.withUnsafeMutableBufferPointer { out in
                EVP_Digest(input.baseAddress, input.count, out.baseAddress, &length, md, nil)
            }
        }
        try openSSLCheck(ok, "EVP_Digest")
        output.removeSubrange(Int(length)...)
        return output
    }
}

extension DigestAlgorithm {
    /// Hashes the concatenation of `parts` without joining them into one buffer first.
    ///
    /// Used to key the verified-chain cache by all certificate bytes of a receipt, which lie in
    /// separate slices.
    package func hash(concatenating parts: [ArraySlice<UInt8>]) throws(CryptoError) -> [UInt8] {
        let context = try openSSLCheck(EVP_MD_CTX_new(), "EVP_MD_CTX_new")
        defer { EVP_MD_CTX_free(context) }
        try openSSLCheck(EVP_DigestInit_ex(context, evpMD, nil), "EVP_DigestInit_ex")
        for part in parts {
            let ok = part.withUnsafeBytes { EVP_DigestUpdate(context, $0.baseAddress, $0.count) }
            try openSSLCheck(ok, "EVP_DigestUpdate")
        }
        var output = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let ok = output.withUnsafeMutableBufferPointer { EVP_DigestFinal_ex(context, $0.baseAddress, &length) }
        try openSSLCheck(ok, "EVP_DigestFinal_ex")
        output.removeSubrange(Int(length)...)
        return output
    }
}

/// Holds the fetched `EVP_MD` pointers.
///
/// `@unchecked Sendable`: the pointers are written once in `init` and OpenSSL documents fetched
/// `EVP_MD` objects as safe to share between threads for read-only use.
private final class FetchedDigests: @unchecked Sendable {
    static let shared = FetchedDigests()

    let sha1: OpaquePointer
    let sha256: OpaquePointer
    let sha384: OpaquePointer
    let sha512: OpaquePointer

    private init() {
        // EVP_MD_fetch from the default provider: SHA-1 and SHA-2 are always there in libcrypto 3, so a
        // failure here means a broken installation, not anything a receipt can cause.
        func lookup(_ name: String) -> OpaquePointer {
            guard let md = EVP_MD_fetch(nil, name, nil) else {
                fatalError("libcrypto has no \(name) implementation: \(CryptoError.drainErrorQueue())")
            }
            return md
        }
        sha1 = lookup("SHA1")
        sha256 = lookup("SHA256")
        sha384 = lookup("SHA384")
        sha512 = lookup("SHA512")
    }
}
