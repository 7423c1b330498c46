internal import BER
package import ReceiptCrypto
#if canImport(FoundationEssentials)
    internal import FoundationEssentials
#else
    internal import Foundation
#endif

/// The certificates a receipt's chain may end at.
///
/// Apple's roots are pinned by the SHA-256 fingerprint of their DER: every Apple-signed receipt embeds
/// the Apple Root CA byte for byte, so an embedded certificate whose fingerprint is pinned becomes the
/// anchor and no certificate file is needed. Extra roots (the project's test PKI, a future Apple root)
/// are loaded from PEM or DER files. Xcode's StoreKit Testing certificate is trusted only on request.
public struct TrustAnchors: Sendable {
    /// Apple Root CA (RSA, 2006–2035): app receipts and iOS 6 receipts.
    public static let appleRootCAFingerprint: [UInt8] = hexBytes(
        "B0B1730ECBC7FF4505142C49F1295E6EDA6BCAED7E2C68C5BE91B5A11001F024")
    /// Apple Root CA - G3 (ECC P-384, 2014–2039): StoreKit 2 JWS.
    public static let appleRootCAG3Fingerprint: [UInt8] = hexBytes(
        "63343ABFB89A6A03EBB57E9B3F5FA7BE7C4F5C756F3017B3A8C488C3653E9179")
    /// Xcode's self-signed StoreKit Testing certificate (2020–2040).
    package static let xcodeStoreKitTestingFingerprint: [UInt8] = hexBytes(
        "FF0BA36E721D2DB741D2AA11E6112EF78BF7131B46C7F035B00891D045C864FE")

    /// Fingerprints of certificates that become anchors when a receipt embeds them. Defaults to Apple
    /// Root CA and Apple Root CA - G3.
    package var pinnedFingerprints: Set<[UInt8]>
    /// Roots trusted in addition to the pinned ones, e.g. loaded with ``addRoots(fromPath:)``.
    package var additionalRoots: [Certificate]
    /// Trust Xcode's StoreKit Testing certificate (receipts it signs report environment `Xcode`).
    /// It is trusted only as a receipt's own self-signed signer, never as an issuer of other certificates.
    public var allowsXcodeStoreKitTesting: Bool
    /// The fingerprint that identifies the StoreKit Testing certificate: Apple's by default; tests
    /// replace it with a certificate whose key they hold.
    package var xcodeTestingFingerprint: [UInt8] = TrustAnchors.xcodeStoreKitTestingFingerprint

    /// Apple's pinned roots, nothing else, Xcode not trusted. Further roots come from ``addRoots(fromPath:)``.
    public init(
        pinnedFingerprints: Set<[UInt8]> = [
            TrustAnchors.appleRootCAFingerprint, TrustAnchors.appleRootCAG3Fingerprint,
        ],
        allowsXcodeStoreKitTesting: Bool = false
    ) {
        self.init(
            pinnedFingerprints: pinnedFingerprints, additionalRoots: [],
            allowsXcodeStoreKitTesting: allowsXcodeStoreKitTesting)
    }

    /// The same with parsed roots, inside the package (ReceiptCrypto's `Certificate` is not public API).
    package init(pinnedFingerprints: Set<[UInt8]>, additionalRoots: [Certificate], allowsXcodeStoreKitTesting: Bool) {
        self.pinnedFingerprints = pinnedFingerprints
        self.additionalRoots = additionalRoots
        self.allowsXcodeStoreKitTesting = allowsXcodeStoreKitTesting
    }

    /// Adds every certificate of a PEM or DER file, or of every regular file in a directory
    /// (`.pem`, `.crt`, `.cer`, `.der`), as roots.
    /// - Throws: ``VerificationError`` when a path cannot be read or a file holds no certificate.
    public mutating func addRoots(fromPath path: String) throws(VerificationError) {
        // Follows a symbolic link, as a folder of roots mounted or linked into place often is.
        #if canImport(FoundationEssentials)
            var isDirectory = false
        #else
            var isDirectory: ObjCBool = false
        #endif
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw VerificationError(.unreadableFile, "\(path) does not exist")
        }
        guard Bool(isDirectory) else {
            additionalRoots += try Self.load(file: path)
            return
        }
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: path).sorted()
        } catch {
            throw VerificationError(.unreadableFile, "\(path): \(error)")
        }
        let extensions: Set<String> = ["pem", "crt", "cer", "der"]
        for name in names where extensions.contains(Self.fileExtension(of: name)) {
            additionalRoots += try Self.load(file: path.hasSuffix("/") ? path + name : path + "/" + name)
        }
    }

    /// What follows a file name's last dot, lowercased; empty when there is none, or only a leading one (`.pem`, a
    /// hidden file, has no extension).
    private static func fileExtension(of name: String) -> String {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return "" }
        return name[name.index(after: dot)...].lowercased()
    }

    /// `true` when `certificate` may serve as an anchor because of a pin (not an additional root).
    func isPinned(_ certificate: Certificate) -> Bool {
        pinnedFingerprints.contains(certificate.sha256Fingerprint)
            || (allowsXcodeStoreKitTesting && certificate.sha256Fingerprint == xcodeTestingFingerprint)
    }

    /// A digest naming this anchor set, part of every chain-cache key so that caches could be shared
    /// between verifiers with different anchors without mixing their results.
    func identity() -> [UInt8] {
        var parts: [ArraySlice<UInt8>] = pinnedFingerprints.sorted { $0.lexicographicallyPrecedes($1) }.map { $0[...] }
        parts += additionalRoots.map(\.sha256Fingerprint).sorted { $0.lexicographicallyPrecedes($1) }.map { $0[...] }
        parts.append([allowsXcodeStoreKitTesting ? 1 : 0][...])
        parts.append(xcodeTestingFingerprint[...])
        do {
            return try DigestAlgorithm.sha256.hash(concatenating: parts)
        } catch {
            // Without the digest, the parts themselves (fixed-length fingerprints and a flag) name the set exactly:
            // a longer key, never one two anchor sets share.
            return parts.flatMap { $0 }
        }
    }

    private static func load(file path: String) throws(VerificationError) -> [Certificate] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw VerificationError(.unreadableFile, "\(path) cannot be read")
        }
        do {
            return try Certificate.certificates(fromFileContents: [UInt8](data))
        } catch {
            throw VerificationError(.invalidAnchor, "\(path): \(error)")
        }
    }

    /// The bytes of a fingerprint constant written in this file (valid hex; empty if it were not).
    static func hexBytes(_ hex: StaticString) -> [UInt8] {
        let digits = hex.withUTF8Buffer { Array($0) }
        guard case .success(let bytes) = Hex.decode(digits) else { return [] }
        return bytes
    }
}
