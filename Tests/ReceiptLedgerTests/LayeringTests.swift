import Foundation
import TestSupport
import Testing

/// What each layer may import (docs/ARCHITECTURE.md, "may import"), held against every source file's `import`
/// lines. SwiftPM lets a target import a module it does not declare when the module was built anyway, so the
/// declared dependencies alone would not stop a shortcut around a layer: this does. Above all, the ledger stays
/// persistence: never the remote client, OpenSSL or HTTP shapes (the intake computes digests, the server renders).
@Suite struct LayeringTests {
    /// Modules of the platform any target may use (not BER, which uses nothing).
    static let platform: Set<String> = ["Glibc", "Darwin", "Musl", "Synchronization", "Dispatch"]
    static let foundation: Set<String> = ["Foundation", "FoundationEssentials"]
    static let nio: Set<String> = ["NIOCore", "NIOPosix", "NIOSSL", "NIOHTTP1"]

    /// Each target's own modules beyond `platform`.
    static let allowed: [String: Set<String>] = [
        "BER": [],
        "ReceiptModel": Set(["BER"]).union(foundation),
        "ReceiptCrypto": ["BER", "COpenSSL"],
        "ReceiptVerification": Set(["BER", "ReceiptModel", "ReceiptCrypto"]).union(foundation),
        "ReceiptForge": Set(["BER", "ReceiptModel", "ReceiptCrypto"]).union(foundation),
        "ReceiptRemote": Set([
            "BER", "ReceiptModel", "ReceiptCrypto", "ReceiptVerification", "AsyncHTTPClient", "Logging",
        ]).union(nio)
            .union(foundation),
        // The ledger's rules and values, no storage engine: what imports it (the intake, verify-local through it)
        // links neither SQLite nor PostgreSQL.
        "ReceiptLedger": ["BER", "ReceiptModel", "ReceiptVerification", "NIOCore", "NIOPosix"],
        "ReceiptLedgerStores": Set([
            "BER", "ReceiptModel", "ReceiptVerification", "ReceiptLedger", "GRDB", "GRDBSQLite", "PostgresNIO",
            "Logging",
        ])
        .union(nio),
        "ReceiptIntake": [
            "BER", "ReceiptModel", "ReceiptCrypto", "ReceiptVerification", "ReceiptRemote", "ReceiptLedger",
            "Logging",
        ],
        // Events out: the ledger's outbox to the operator's backend; HMAC through ReceiptCrypto, never OpenSSL itself.
        "ReceiptWebhooks": [
            "BER", "ReceiptLedger", "ReceiptModel", "ReceiptCrypto", "AsyncHTTPClient", "Logging", "NIOCore",
            "NIOHTTP1",
        ],
        "ReceiptServer": [
            "BER", "ReceiptModel", "ReceiptVerification", "ReceiptRemote", "ReceiptLedger", "ReceiptIntake",
            "ReceiptWebhooks", "Hummingbird", "HTTPTypes", "Logging", "Metrics", "NIOCore", "NIOHTTPTypes",
            "Prometheus", "ServiceLifecycle", "UnixSignals",
        ],
        // verify-local verifies through the intake and keeps no ledger: never a store (ReceiptLedgerStores), so that
        // it links no database engine. ReceiptCrypto only to set OpenSSL up while its arguments are parsed; CFileRead
        // for the read that tells an uncached file (ReadAhead).
        "VerifyLocal": Set([
            "ArgumentParser", "BER", "CFileRead", "CMalloc", "Logging", "ReceiptCrypto", "ReceiptIntake",
            "ReceiptModel", "ReceiptRemote", "ReceiptVerification",
        ]).union(foundation),
        // A test double: Foundation for the test PKI's folder of its in-process form (the benchmarks').
        "AppleStandIn": Set([
            "BER", "ReceiptModel", "ReceiptVerification", "ReceiptForge", "ReceiptCrypto", "Hummingbird", "Logging",
            "NIOCore",
        ]).union(foundation),
    ]

    /// The modules `source` imports (`import M`, `public import M`, `@_spi(S) import M`, …), comments aside.
    static func imports(in source: String) -> Set<String> {
        var found: Set<String> = []
        for line in source.split(separator: "\n") {
            var words = line.split(separator: " ").map(String.init)
            while let first = words.first, first.hasPrefix("@") || ["public", "package", "internal"].contains(first) {
                words.removeFirst()
            }
            guard words.count >= 2, words[0] == "import" else { continue }
            found.insert(words[1])
        }
        return found
    }

    /// The package's own modules that `verify-local` links. On Linux each takes FoundationEssentials, never the whole
    /// of Foundation: that would link Foundation's internationalization, CoreFoundation and ICU into the executable, a
    /// third of its size and a fifth of the conformances the runtime scans at every start (BENCHMARKS.md, "Issue 28").
    /// Its dependencies are checked on the binary itself, by `scripts/build-release`.
    static let essentialsOnly = [
        "BER", "ReceiptModel", "ReceiptCrypto", "ReceiptVerification", "ReceiptRemote", "ReceiptLedger",
        "ReceiptIntake", "VerifyLocal",
    ]

    /// Each Swift file of `target`, by its path in the target's folder, with its text.
    static func sources(of target: String) throws -> [(file: String, text: String)] {
        let folder = SharedTestData.packageRoot.appendingPathComponent("Sources").appendingPathComponent(target)
        let files = try #require(FileManager.default.enumerator(atPath: folder.path)).compactMap { $0 as? String }
            .filter { $0.hasSuffix(".swift") }
        return try files.map { ($0, try String(contentsOf: folder.appendingPathComponent($0), encoding: .utf8)) }
    }

    /// `true` when every `import Foundation` of `source` is the `#else` of `#if canImport(FoundationEssentials)`.
    static func importsFoundationOnlyAsFallback(in source: String) -> Bool {
        var inFallback = false
        var inEssentialsCheck = false
        for line in source.split(separator: "\n").map({ $0.trimmingCharacters(in: .whitespaces) }) {
            if line == "#if canImport(FoundationEssentials)" {
                inEssentialsCheck = true
            } else if line == "#else" {
                inFallback = inEssentialsCheck
            } else if line == "#endif" {
                inEssentialsCheck = false
                inFallback = false
            } else if !inFallback, imports(in: line).contains("Foundation") {
                return false
            }
        }
        return true
    }

    @Test(arguments: allowed.keys.sorted())
    func eachLayerImportsOnlyWhatItMay(target: String) throws {
        let sources = try Self.sources(of: target)
        #expect(!sources.isEmpty, "\(target) has sources")
        let allowed = (Self.allowed[target] ?? []).union(target == "BER" ? [] : Self.platform).union([target])
        for (file, source) in sources {
            let stray = Self.imports(in: source).subtracting(allowed)
            #expect(stray.isEmpty, "\(target)/\(file) imports \(stray.sorted()), which its layer may not")
        }
    }

    @Test(arguments: essentialsOnly)
    func verifyLocalsModulesTakeFoundationEssentials(target: String) throws {
        let sources = try Self.sources(of: target)
        #expect(!sources.isEmpty, "\(target) has sources")
        for (file, source) in sources {
            #expect(
                Self.importsFoundationOnlyAsFallback(in: source),
                "\(target)/\(file) imports Foundation where FoundationEssentials would do")
        }
    }

    /// The fallback reader tells the two forms apart, so the check above can fail.
    @Test func theFallbackReaderTellsAnImportFromAFallback() {
        let fallback = """
            import A
            #if canImport(FoundationEssentials)
                import FoundationEssentials
            #else
                import Foundation
            #endif
            """
        #expect(Self.importsFoundationOnlyAsFallback(in: fallback))
        #expect(!Self.importsFoundationOnlyAsFallback(in: "import A\ninternal import Foundation\n"))
        #expect(!Self.importsFoundationOnlyAsFallback(in: "#if canImport(Glibc)\n#else\nimport Foundation\n#endif\n"))
        #expect(!Self.importsFoundationOnlyAsFallback(in: fallback + "\nimport Foundation\n"))
    }

    /// The reader finds what the rule is about, so the check above can fail.
    @Test func theReaderSeesEveryFormOfImport() {
        let source = """
            import A
            public import B
            @_spi(Fuzzing) import C
            internal import D
            // import E
            let importer = 1
            """
        #expect(Self.imports(in: source) == ["A", "B", "C", "D"])
    }
}
