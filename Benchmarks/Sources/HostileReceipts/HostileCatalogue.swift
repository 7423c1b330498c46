public import Foundation
import ReceiptForge
import ReceiptModel

/// The most expensive receipts an attacker can make within the verifier's limits, each paired with an ordinary
/// receipt of the same request size, minted with the project's forge over a ``HostilePKI``.
///
/// A receipt whose chain or signature fails is never cached, so each of these pays the verifier's cold path on every
/// request: the package's own reading of each embedded certificate's key, then `d2i_X509` of each,
/// `X509_verify_cert`, the by-name issuer checks and the partial-path signature checks, then the CMS signature.
/// The megabyte-sized ones instead make the decoder iterate over as many tiny elements as fit
/// (``TinyElementReceipt``, ``NestedIndefiniteReceipt``).
public struct HostileCatalogue: Sendable {
    /// The hostile receipts, in the order tables list them.
    public let hostile: [HostileVariant]

    /// The repository root (for `fixtures/descriptions` and `certs/`).
    public let repositoryRoot: URL

    /// Mints every hostile receipt; `pki` must have been made by ``HostilePKI/make(in:repositoryRoot:)``.
    ///
    /// - Parameter only: names to mint (all when empty); the 1 MiB BER receipt takes a moment.
    public init(pki: HostilePKI, repositoryRoot: URL, only: Set<String> = []) throws(HostileInputError) {
        self.repositoryRoot = repositoryRoot
        let descriptions = repositoryRoot.appendingPathComponent("fixtures/descriptions")
        let appReceipt = try Self.request(descriptions.appendingPathComponent("valid-sha256.json"))
        let ios6 = try Self.request(descriptions.appendingPathComponent("ios6-valid.json"))
        let names = HostilePKI.Name.self
        let tomorrow = Self.rfc3339(Date().addingTimeInterval(86_400))

        /// An app receipt of `certificates`, signed in `signer`'s name with `key`, created tomorrow (the
        /// throwaway certificates are valid from today), its payload changed after signing when `tampered`.
        func app(_ certificates: [String], signer: String, key: String, created: String? = nil, tampered: Bool = false)
            -> MintRequest
        {
            var request = appReceipt
            request.signing.certificates = certificates
            request.signing.signers = [SignerPlan(certificate: signer, key: key)]
            request.receipt?.creationDate = created ?? tomorrow
            if tampered { request.tamper = Tamper(applicationVersion: "9.9.9") }
            return request
        }
        func iOS6(certificate: String) -> MintRequest {
            var request = ios6
            // Version 3 blobs carry a 256-byte signature, so a 2,048-bit key signs whatever the certificate says.
            request.signing.signers = [SignerPlan(certificate: certificate, key: "test-ios6-purchase-receipt")]
            request.signing.certificates = [certificate]
            return request
        }

        let genuine = ["test-leaf", "test-intermediate", "test-root"]
        /// The test chain's receipt with its payload changed after signing: the chain ordinary traffic caches.
        let tamperedGenuine = app(
            genuine, signer: "test-leaf", key: "test-leaf", created: "2025-06-15T09:30:00Z", tampered: true)
        let recipes: [(String, String, () throws(HostileInputError) -> [UInt8])] = [
            (
                "genuine-chain-tampered",
                "the test chain (3 × RSA-2048) with the payload changed after signing: d2i × 3, a complete path "
                    + "(2 signatures), the CMS signature fails",
                { () throws(HostileInputError) in
                    try Self.mint(tamperedGenuine, pki)
                }
            ),
            (
                "genuine-chain-plus-junk",
                "the same with a self-issued ~4 KiB RSA-4096 certificate on no path in place of the root (the trusted "
                    + "anchor completes the path): 3 × d2i_X509, as many as the verifier reads",
                { () throws(HostileInputError) in
                    try Self.mint(
                        app(
                            Array(genuine.prefix(2)) + [names.junk], signer: "test-leaf", key: "test-leaf",
                            created: "2025-06-15T09:30:00Z", tampered: true), pki)
                }
            ),
            (
                "rsa4096-namesake-issuers",
                "3 × ~4 KiB RSA-4096: a leaf whose issuer name two other certificates carry, none of which signed it "
                    + "(2 by-name signature checks, then the CMS signature with the leaf's 4,096-bit key)",
                { () throws(HostileInputError) in
                    try Self.mint(
                        app([names.namedLeaf] + names.namesakes.prefix(2), signer: names.namedLeaf, key: names.key4096),
                        pki)
                }
            ),
            (
                "rsa4096-partial-path",
                "3 × ~4 KiB RSA-4096 forming leaf ← 1 ← 2, 2's issuer absent (2 partial-path signature checks, "
                    + "the CMS signature verifies: inconclusive, chain.incomplete); as many certificates as the verifier "
                    + "reads (3)",
                { () throws(HostileInputError) in
                    try Self.mint(
                        app(Array(names.partialPath.prefix(3)), signer: names.partialPath[0], key: names.key4096), pki)
                }
            ),
            (
                "rsa2048-small-partial-path",
                "the same shape with the smallest RSA-2048 certificates (~0.6 KB each): the most RSA work per byte",
                { () throws(HostileInputError) in
                    try Self.mint(
                        app(Array(names.smallPath.prefix(3)), signer: names.smallPath[0], key: names.key2048), pki)
                }
            ),
            (
                "p224-compressed-3certs",
                "3 small certificates with a compressed P-224 key (a named curve): refused by the package's own key reader "
                    + "before d2i_X509 (chain.key_rejected)",
                { () throws(HostileInputError) in
                    try Self.mint(app(Array(names.p224.prefix(3)), signer: names.p224[0], key: "test-leaf"), pki)
                }
            ),
            (
                "ec-explicit-3certs",
                "3 × ~0.5 KB certificates with explicit 661-bit prime-field curve parameters and compressed points "
                    + "(p − 1 divisible by 2^652; decoding one cost OpenSSL most of a second): refused before d2i_X509",
                { () throws(HostileInputError) in
                    try Self.mint(
                        app(Array(names.explicitCurve.prefix(3)), signer: names.explicitCurve[0], key: "test-leaf"), pki
                    )
                }
            ),
            (
                "ios6-rsa4096",
                "an iOS 6 receipt whose certificate is a ~4 KiB RSA-4096 one",
                { () throws(HostileInputError) in try Self.mint(iOS6(certificate: names.partialPath[0]), pki) }
            ),
            (
                "ios6-ec-explicit",
                "an iOS 6 receipt whose certificate is one of the explicit-curve ones (refused before d2i_X509)",
                { () throws(HostileInputError) in try Self.mint(iOS6(certificate: names.explicitCurve[0]), pki) }
            ),
            (
                "ber-nested-indefinite-1MiB",
                "a 1 MiB request: eContent as 27 nested indefinite-length OCTET STRINGs around ~390,000 empty "
                    + "segments (rescanned at every level by the old reader; read once now)",
                { () throws(HostileInputError) in NestedIndefiniteReceipt.bytes(size: Self.largestReceipt) }
            ),
            (
                "certificates-16-tiny",
                "genuine-chain-tampered with its certificates replaced by 16 empty SEQUENCEs, the most the "
                    + "SignedData list cap (16) lets the decoder read; refused by count (chain.too_large) before any "
                    + "is parsed",
                { () throws(HostileInputError) in
                    try TinyElementReceipt.replacingCertificates(
                        in: try Self.mint(tamperedGenuine, pki),
                        with: Array(repeating: [0x30, 0x00], count: SignedData.maximumListElements))
                }
            ),
            (
                "unknown-attributes-1MiB",
                "a 1 MiB request: genuine-chain-tampered plus ~78,000 undocumented 10-byte top-level attributes, each "
                    + "read by the fast attribute walk (no cap counts them); the digest covers them all, the "
                    + "signature fails",
                { () throws(HostileInputError) in
                    try TinyElementReceipt.padded(
                        tamperedGenuine, pki: pki.pki, size: Self.largestReceipt,
                        element: TinyElementReceipt.unknownAttribute)
                }
            ),
            (
                "unknown-attributes-general-reader-1MiB",
                "the same with one indefinite-length attribute first, so the general BER reader (a BERElement "
                    + "per attribute and per field) reads the other ~78,000",
                { () throws(HostileInputError) in
                    try TinyElementReceipt.padded(
                        tamperedGenuine, pki: pki.pki, size: Self.largestReceipt,
                        lead: TinyElementReceipt.indefiniteUnknownAttribute,
                        element: TinyElementReceipt.unknownAttribute)
                }
            ),
            (
                "empty-purchases-1MiB",
                "a 1 MiB request: genuine-chain-tampered plus ~65,000 in-app purchases with no field (12 bytes each), "
                    + "an InAppPurchase decoded for each; the signature fails",
                { () throws(HostileInputError) in
                    try TinyElementReceipt.padded(
                        tamperedGenuine, pki: pki.pki, size: Self.largestReceipt,
                        element: TinyElementReceipt.emptyPurchase)
                }
            ),
            (
                "empty-purchases-general-reader-1MiB",
                "the same with one indefinite-length attribute first, so the general BER reader reads every purchase "
                    + "before an InAppPurchase is decoded from it",
                { () throws(HostileInputError) in
                    try TinyElementReceipt.padded(
                        tamperedGenuine, pki: pki.pki, size: Self.largestReceipt,
                        lead: TinyElementReceipt.indefiniteUnknownAttribute,
                        element: TinyElementReceipt.emptyPurchase)
                }
            ),
        ]
        var hostile: [HostileVariant] = []
        for (name, summary, make) in recipes where only.isEmpty || only.contains(name) {
            hostile.append(HostileVariant(name: name, summary: summary, bytes: try make()))
        }
        self.hostile = hostile
    }

    /// The largest receipt whose request fits the server's default body limit of 1 MiB (base64 and the JSON
    /// around it included).
    public static let largestReceipt = ((1 << 20) - 20) / 4 * 3

    /// An ordinary receipt whose request is at least as large as `variant`'s (the smallest such): the fixture
    /// `valid-large-1200-purchases` (test chain, BER) with its purchase count chosen, valid and cacheable. A
    /// variant smaller than the smallest ordinary receipt (no purchases) gets that one.
    public func ordinary(matching variant: HostileVariant) throws(HostileInputError) -> HostileVariant {
        let target = variant.requestBody.count
        var base = try Self.request(
            repositoryRoot.appendingPathComponent("fixtures/descriptions/valid-large-1200-purchases.json"))
        let pki = TestPKI(directory: repositoryRoot.appendingPathComponent("certs"))
        func mint(_ count: Int) throws(HostileInputError) -> HostileVariant {
            base.generatedPurchases?.count = count
            let bytes = try Self.mint(base, pki)
            return HostileVariant(
                name: "ordinary-for-\(variant.name)", summary: "valid, \(count) purchases, warm chain cache",
                bytes: bytes)
        }
        var low = 0
        var high = 1
        var found = try mint(0)
        guard found.requestBody.count < target else { return found }
        while true {
            found = try mint(high)
            if found.requestBody.count >= target { break }
            low = high
            high *= 2
        }
        // Smallest count in (low, high] whose request reaches the target.
        while high - low > 1 {
            let middle = (low + high) / 2
            if try mint(middle).requestBody.count >= target { high = middle } else { low = middle }
        }
        found = try mint(high)
        // A request over the body limit would be refused unread: stay under it, a little smaller than the target.
        if found.requestBody.count > 1 << 20 { found = try mint(high - 1) }
        return found
    }

    static func request(_ url: URL) throws(HostileInputError) -> MintRequest {
        do {
            return try MintRequest(json: Data(contentsOf: url))
        } catch {
            throw HostileInputError("cannot read \(url.path): \(error)")
        }
    }

    static func mint(_ request: MintRequest, _ pki: HostilePKI) throws(HostileInputError) -> [UInt8] {
        try mint(request, pki.pki)
    }

    static func mint(_ request: MintRequest, _ pki: TestPKI) throws(HostileInputError) -> [UInt8] {
        do {
            return try request.mint(pki: pki)
        } catch {
            throw HostileInputError("minting failed: \(error)")
        }
    }

    static func rfc3339(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.string(from: date)
    }
}
