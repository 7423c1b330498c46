public import Foundation
public import ReceiptForge

/// A throwaway PKI in a scratch folder, laid out like `certs/` (``TestPKI``): the project's test chain copied in,
/// plus certificates an attacker would make to be as expensive as the verifier's limits allow (at most 4
/// certificates of at most 4 KiB, RSA 2,048–4,096 bits, exponent 65,537), and some it refuses only after
/// OpenSSL has parsed them (elliptic-curve keys).
///
/// RSA certificates are issued with the `openssl` command, as the test suites make theirs; the explicit-curve
/// ones are written with the forge's DER writer (``ExplicitCurveCertificate``), because no tool issues them.
/// Nothing here is committed: ``make(in:repositoryRoot:)`` writes it at run time.
public struct HostilePKI: Sendable {
    /// The folder, usable as a ``TestPKI``.
    public let pki: TestPKI

    /// The largest certificate the verifier reads is 4,096 bytes; padded certificates aim just under it.
    static let paddedSize = 4_000

    /// Names of the certificates, as ``TestPKI/certificate(named:)`` finds them.
    public enum Name {
        /// A 4,096-bit leaf (~4 KiB, long names, many extensions) whose issuer is named by
        /// ``namesakes``, none of which signed it.
        public static let namedLeaf = "big-named-leaf"
        /// Three ~4 KiB CA certificates with 4,096-bit keys that all carry the leaf's issuer name.
        public static let namesakes = ["big-namesake-1", "big-namesake-2", "big-namesake-3"]
        /// A ~4 KiB 4,096-bit path leaf ← 1 ← 2 ← 3, each signed by the next; 3's issuer is absent.
        public static let partialPath = ["big-path-leaf", "big-path-1", "big-path-2", "big-path-3"]
        /// The same shape with the smallest RSA-2,048 certificates `openssl` makes.
        public static let smallPath = ["small-path-leaf", "small-path-1", "small-path-2", "small-path-3"]
        /// Four certificates with a compressed P-224 point (a named curve; refused after parsing).
        public static let p224 = ["p224-1", "p224-2", "p224-3", "p224-4"]
        /// Four certificates with explicit prime-field curve parameters and compressed points.
        public static let explicitCurve = ["ec-explicit-1", "ec-explicit-2", "ec-explicit-3", "ec-explicit-4"]
        /// A self-issued junk certificate of ~4 KiB with a 4,096-bit key, on no path.
        public static let junk = "big-junk"
        /// The 4,096-bit key that signs receipts in the big leaves' names.
        public static let key4096 = "hostile-rsa4096"
        /// The 2,048-bit key of the small path.
        public static let key2048 = "hostile-rsa2048"
    }

    /// Makes the PKI in `directory` (created if needed), copying the test chain from `repositoryRoot/certs`.
    ///
    /// Takes a few seconds: two 4,096-bit keys are generated.
    public static func make(in directory: URL, repositoryRoot: URL) throws(HostileInputError) -> HostilePKI {
        let maker = Maker(directory: directory)
        try maker.prepare(copyingFrom: repositoryRoot.appendingPathComponent("certs"))
        try maker.makeAll()
        do {
            try Data().write(to: directory.appendingPathComponent(completeMarker))
        } catch {
            throw HostileInputError("cannot write \(completeMarker): \(error)")
        }
        return HostilePKI(pki: TestPKI(directory: directory))
    }

    /// The PKI an earlier ``make(in:repositoryRoot:)`` left complete in `directory`, else a new one made there.
    public static func reuseOrMake(in directory: URL, repositoryRoot: URL) throws(HostileInputError) -> HostilePKI {
        if FileManager.default.fileExists(atPath: directory.appendingPathComponent(completeMarker).path) {
            return HostilePKI(pki: TestPKI(directory: directory))
        }
        return try make(in: directory, repositoryRoot: repositoryRoot)
    }

    /// Written last by ``make(in:repositoryRoot:)``.
    static let completeMarker = "complete"

    /// The steps, in one folder.
    private struct Maker {
        let directory: URL
        var keys: URL { directory.appendingPathComponent("test-only-keys") }

        func prepare(copyingFrom certs: URL) throws(HostileInputError) {
            do {
                try FileManager.default.createDirectory(at: keys, withIntermediateDirectories: true)
                for name in ["test-leaf", "test-intermediate", "test-root", "test-ios6-purchase-receipt"] {
                    try copy(
                        certs.appendingPathComponent("\(name).pem"), to: directory.appendingPathComponent("\(name).pem")
                    )
                    try copy(
                        certs.appendingPathComponent("test-only-keys/\(name).key.pem"),
                        to: keys.appendingPathComponent("\(name).key.pem"))
                }
                try Data(Self.configuration.utf8).write(to: directory.appendingPathComponent("hostile.cnf"))
            } catch {
                throw HostileInputError("cannot prepare \(directory.path): \(error)")
            }
        }

        private func copy(_ source: URL, to target: URL) throws {
            if FileManager.default.fileExists(atPath: target.path) { try FileManager.default.removeItem(at: target) }
            try FileManager.default.copyItem(at: source, to: target)
        }

        func makeAll() throws(HostileInputError) {
            try key(Name.key4096, bits: 4096)
            try key("hostile-rsa4096-b", bits: 4096)
            try key(Name.key2048, bits: 2048)

            // Never embedded: the absent root everything hangs from, and the real issuer of the named leaf.
            try selfSigned("absent-root", subject: "/CN=Absent Root", key: Name.key4096)
            try issue(
                "named-issuer", subject: Self.longName("Named Issuer"), issuer: "absent-root", key: Name.key4096,
                section: "ca", skid: "0A")
            try issue(
                Name.namedLeaf, subject: Self.longName("Named Leaf"), issuer: "named-issuer", key: Name.key4096,
                section: "leaf", padded: true)
            for (index, name) in Name.namesakes.enumerated() {
                // The leaf's issuer name, another key, and a key identifier the leaf does not name: OpenSSL passes
                // them over, the verifier's own by-name check tries each one's signature.
                try issue(
                    name, subject: Self.longName("Named Issuer"), issuer: "absent-root", key: "hostile-rsa4096-b",
                    section: "ca", skid: "1\(index)", padded: true)
            }

            let path = Name.partialPath
            try issue(
                path[3], subject: Self.longName("Path CA 3"), issuer: "absent-root", key: Name.key4096, section: "ca",
                skid: "23", padded: true)
            try issue(
                path[2], subject: Self.longName("Path CA 2"), issuer: path[3], key: Name.key4096, section: "ca",
                skid: "22", padded: true)
            try issue(
                path[1], subject: Self.longName("Path CA 1"), issuer: path[2], key: Name.key4096, section: "ca",
                skid: "21", padded: true)
            try issue(
                path[0], subject: Self.longName("Path Leaf"), issuer: path[1], key: Name.key4096, section: "leaf",
                padded: true)

            try selfSigned("small-root", subject: "/CN=z", key: Name.key2048, section: "bare")
            let small = Name.smallPath
            try issue(small[3], subject: "/CN=d", issuer: "small-root", key: Name.key2048, section: "bare")
            try issue(small[2], subject: "/CN=c", issuer: small[3], key: Name.key2048, section: "bare")
            try issue(small[1], subject: "/CN=b", issuer: small[2], key: Name.key2048, section: "bare")
            try issue(small[0], subject: "/CN=a", issuer: small[1], key: Name.key2048, section: "bare")

            try issue(
                Name.junk, subject: Self.longName("Junk"), issuer: "absent-root", key: Name.key4096, section: "ca",
                skid: "30", padded: true)

            try openssl([
                "genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-224", "-out", "p224-full.key.pem",
            ])
            try openssl([
                "ec", "-in", "p224-full.key.pem", "-conv_form", "compressed", "-out", "test-only-keys/p224.key.pem",
            ])
            for (index, name) in Name.p224.enumerated() {
                try issue(name, subject: "/CN=p\(index)", issuer: "small-root", key: "p224", section: "bare")
            }

            for (index, name) in Name.explicitCurve.enumerated() {
                let der = ExplicitCurveCertificate.der(serial: Int64(index + 1))
                do {
                    try Data(Self.pem(der).utf8).write(to: directory.appendingPathComponent("\(name).pem"))
                } catch {
                    throw HostileInputError("cannot write \(name).pem: \(error)")
                }
            }
        }

        func key(_ name: String, bits: Int) throws(HostileInputError) {
            try openssl([
                "genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:\(bits)", "-out",
                "test-only-keys/\(name).key.pem",
            ])
        }

        func selfSigned(_ name: String, subject: String, key: String, section: String = "ca") throws(HostileInputError)
        {
            try rememberKey(key, for: name)
            try openssl([
                "req", "-x509", "-new", "-key", "test-only-keys/\(key).key.pem", "-subj", subject, "-days", "36500",
                "-config", "hostile.cnf", "-extensions", section, "-out", "\(name).pem",
            ])
        }

        /// Issues `name` (key `key`) under `issuer` (signed with the issuer's key); `padded` fills it with
        /// subjectAltName entries to just under ``HostilePKI/paddedSize`` bytes.
        func issue(
            _ name: String, subject: String, issuer: String, key: String, section: String, skid: String? = nil,
            padded: Bool = false
        ) throws(HostileInputError) {
            let issuerKey = try keyName(of: issuer)
            try rememberKey(key, for: name)
            try openssl([
                "req", "-new", "-key", "test-only-keys/\(key).key.pem", "-subj", subject, "-config", "hostile.cnf",
                "-out", "\(name).csr",
            ])
            func sign(entries: Int) throws(HostileInputError) -> Int {
                var extensions = "[x]\n" + Self.sections[section, default: ""]
                if let skid { extensions += "subjectKeyIdentifier = \(String(repeating: skid, count: 20))\n" }
                if entries > 0 {
                    let names = (0..<entries).map { "DNS:\(Self.paddingHost(index: $0))" }.joined(separator: ",")
                    extensions += "subjectAltName = \(names)\n"
                }
                do {
                    try Data(extensions.utf8).write(to: directory.appendingPathComponent("\(name).ext"))
                } catch {
                    throw HostileInputError("cannot write \(name).ext: \(error)")
                }
                try openssl([
                    "x509", "-req", "-in", "\(name).csr", "-CA", "\(issuer).pem", "-CAkey",
                    "test-only-keys/\(issuerKey).key.pem", "-set_serial", "\(Self.serial(name))", "-days", "36500",
                    "-extfile", "\(name).ext", "-extensions", "x", "-outform", "DER", "-out", "\(name).der",
                ])
                guard let der = try? Data(contentsOf: directory.appendingPathComponent("\(name).der")) else {
                    throw HostileInputError("openssl wrote no \(name).der")
                }
                do {
                    try Data(Self.pem([UInt8](der)).utf8).write(to: directory.appendingPathComponent("\(name).pem"))
                } catch {
                    throw HostileInputError("cannot write \(name).pem: \(error)")
                }
                return der.count
            }
            let bare = try sign(entries: 0)
            guard padded else { return }
            // One entry costs its host name, the DNS tag and length; a second pass lands just under the target.
            let entry = Self.paddingHost(index: 0).utf8.count + 2
            var entries = max(0, (paddedSize - 16 - bare) / entry)
            while try sign(entries: entries) > paddedSize, entries > 0 { entries -= 1 }
        }

        /// Records which key `certificate` has, for the certificates it issues in turn.
        func rememberKey(_ key: String, for certificate: String) throws(HostileInputError) {
            do {
                try Data(key.utf8).write(to: directory.appendingPathComponent("\(certificate).keyname"))
            } catch {
                throw HostileInputError("cannot write \(certificate).keyname: \(error)")
            }
        }

        func keyName(of certificate: String) throws(HostileInputError) -> String {
            guard let data = try? Data(contentsOf: directory.appendingPathComponent("\(certificate).keyname")) else {
                throw HostileInputError("no key recorded for \(certificate)")
            }
            return String(decoding: data, as: UTF8.self)
        }

        func openssl(_ arguments: [String]) throws(HostileInputError) {
            try OpenSSLCommand.run(arguments, in: directory)
        }

        /// Serial numbers from the name, so the same PKI made again has the same serials.
        static func serial(_ name: String) -> Int {
            name.utf8.reduce(7) { ($0 &* 31 &+ Int($1)) & 0x7FFF_FFFF }
        }

        static func paddingHost(index: Int) -> String {
            "h\(String(format: "%03d", index)).padding-to-the-size-limit.hostile.example.org"
        }

        /// A subject of six attributes of up to 64 characters each (the most `openssl req` takes per attribute).
        static func longName(_ commonName: String) -> String {
            let filler = String(repeating: "x", count: 50)
            return "/C=US/O=Hostile Org \(filler)/OU=Unit A \(filler)/OU=Unit B \(filler)"
                + "/OU=Unit C \(filler)/CN=\(commonName) \(filler)"
        }

        static func pem(_ der: [UInt8]) -> String {
            let base64 = Data(der).base64EncodedString(options: [.lineLength64Characters, .endLineWithLineFeed])
            return "-----BEGIN CERTIFICATE-----\n\(base64)\n-----END CERTIFICATE-----\n"
        }

        /// The extension sections: `leaf` and `ca` look like Apple's (markers, CA flags, key usage), `bare` has none.
        static let sections: [String: String] = [
            "leaf": """
            basicConstraints = critical, CA:FALSE
            keyUsage = critical, digitalSignature
            authorityKeyIdentifier = keyid:always
            certificatePolicies = 1.2.840.113635.100.5.6.1
            1.2.840.113635.100.6.11.1 = ASN1:NULL

            """,
            "ca": """
            basicConstraints = critical, CA:TRUE
            keyUsage = critical, keyCertSign, cRLSign
            authorityKeyIdentifier = keyid:always
            certificatePolicies = 1.2.840.113635.100.5.6.1
            1.2.840.113635.100.6.2.1 = ASN1:NULL

            """,
            "bare": "",
        ]

        /// The configuration `openssl req` reads (sections for self-signed roots; `x509 -req` gets its own files).
        static let configuration = """
            [req]
            distinguished_name = dn
            prompt = no
            [dn]
            [ca]
            basicConstraints = critical, CA:TRUE
            keyUsage = critical, keyCertSign, cRLSign
            subjectKeyIdentifier = hash
            [bare]
            basicConstraints = critical, CA:TRUE

            """
    }
}
