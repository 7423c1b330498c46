// The receipts the suites measure, read (or minted) once per process.
//
// Real Apple receipts come from ../shared/receipts at run time (never copied into the repository); without
// them the suites fall back to the project's minted fixtures. Receipts with a chosen number of purchases are
// minted in-process with ReceiptForge and the test PKI in certs/. The hostile inputs are built in-process.

@_spi(Fuzzing) import BER
import Foundation
import ReceiptForge
import ReceiptModel
import ReceiptVerification

/// One receipt to measure: a short name for the report, where it came from, and its bytes.
struct BenchInput: Sendable {
    var name: String
    var origin: String
    var bytes: [UInt8]
}

enum Inputs {
    /// The repository root: this file is `Benchmarks/ReceiptBenchmarks/Inputs.swift`.
    static let repositoryRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// `RECEIPT_SHARED_DIR`, else `../shared` beside the repository (as the tests and scripts/loadtest use).
    static let sharedReceipts: URL = {
        if let path = ProcessInfo.processInfo.environment["RECEIPT_SHARED_DIR"], !path.isEmpty {
            return URL(fileURLWithPath: path).appendingPathComponent("receipts")
        }
        return repositoryRoot.deletingLastPathComponent().appendingPathComponent("shared/receipts")
    }()

    static func load(_ url: URL) -> [UInt8]? { (try? Data(contentsOf: url)).map { [UInt8]($0) } }

    /// A real receipt from ../shared, else a fixture.
    static func receipt(shared: String, fixture: String) -> BenchInput {
        let sharedURL = sharedReceipts.appendingPathComponent("\(shared).receipt")
        if let bytes = load(sharedURL) {
            return BenchInput(name: shared, origin: "shared/receipts/\(shared).receipt", bytes: bytes)
        }
        let fixtureURL = repositoryRoot.appendingPathComponent("fixtures/\(fixture).receipt")
        guard let bytes = load(fixtureURL) else { fatalError("neither \(sharedURL.path) nor \(fixtureURL.path) found") }
        return BenchInput(name: fixture, origin: "fixtures/\(fixture).receipt", bytes: bytes)
    }

    /// The ~6 KB receipt the load test also sends.
    static let small = receipt(shared: "aprv-purchasingexp-sandbox-2023-02", fixture: "valid-sha256")
    /// The 79 KB receipt with 187 purchases.
    static let large = receipt(shared: "tpi-nutcall-alert-sandbox-2020-187iap", fixture: "valid-large-1200-purchases")

    /// Apple's pinned roots plus the project's test root (minted receipts chain to it), as the server's
    /// `--root certs/test-root.pem` has them.
    static let anchors: TrustAnchors = {
        var anchors = TrustAnchors()
        do {
            try anchors.addRoots(fromPath: repositoryRoot.appendingPathComponent("certs/test-root.pem").path)
        } catch {
            fatalError("certs/test-root.pem: \(error)")
        }
        return anchors
    }()

    /// A receipt with `count` generated purchases, signed by the test PKI: the request behind
    /// fixtures/valid-large-1200-purchases with only the purchase count changed.
    static func minted(purchases count: Int) -> BenchInput {
        let descriptions = repositoryRoot.appendingPathComponent("fixtures/descriptions")
        do {
            var request = try MintRequest(
                json: Data(contentsOf: descriptions.appendingPathComponent("valid-large-1200-purchases.json")))
            request.generatedPurchases?.count = count
            let bytes = try request.mint(pki: TestPKI(directory: repositoryRoot.appendingPathComponent("certs")))
            return BenchInput(name: "minted-\(count)", origin: "minted in-process, \(count) purchases", bytes: bytes)
        } catch {
            fatalError("minting a receipt with \(count) purchases: \(error)")
        }
    }

    static let minted1 = minted(purchases: 1)
    static let minted100 = minted(purchases: 100)
    static let minted1000 = minted(purchases: 1000)

    /// An ordinary receipt of about 1 MiB: 3,780 purchases of the same shape (277 bytes each).
    static let minted1MiB = minted(purchases: 3780)

    /// Hostile BER of `minted1MiB`'s size, for a per-byte comparison: 31 nested indefinite-length SEQUENCEs
    /// (the depth limit allows 32 levels) around NULLs, the shape that made a reader which rescans each level
    /// cost depth × size (issue 10, class 4(b)).
    static let nestedIndefinite1MiB = BenchInput(
        name: "nested-indefinite", origin: "31 nested indefinite SEQUENCEs around NULLs, built in-process",
        bytes: nestedIndefinite(depth: 31, size: minted1MiB.bytes.count))

    /// A receipt the decoder accepts, of `minted1MiB`'s size: fixtures/valid-ber-indefinite with nested
    /// indefinite junk (27 levels around NULLs) as its first certificate, where every enclosing length is
    /// indefinite. The decoder reads SignedData around it without descending into it.
    static let nestedJunkReceipt: BenchInput = {
        let url = repositoryRoot.appendingPathComponent("fixtures/valid-ber-indefinite.receipt")
        guard var bytes = load(url) else { fatalError("\(url.path) not found") }
        do {
            var top = BERReader(bytes[...])
            var contentInfo = try top.read(expecting: .sequence).children()
            _ = try contentInfo.read(expecting: .objectIdentifier)
            var explicit = try contentInfo.read(expecting: .contextSpecific(0, constructed: true)).children()
            var signedData = try explicit.read(expecting: .sequence).children()
            _ = try signedData.read(expecting: .integer)
            _ = try signedData.read(expecting: .set)
            _ = try signedData.read(expecting: .sequence)
            let certificates = try signedData.read(expecting: .contextSpecific(0, constructed: true))
            guard certificates.isIndefiniteLength else { fatalError("\(url.path): definite-length certificates") }
            let junk = nestedIndefinite(depth: 27, size: minted1MiB.bytes.count - bytes.count)
            bytes.insert(contentsOf: junk, at: certificates.content.startIndex)
        } catch {
            fatalError("\(url.path): \(error)")
        }
        return BenchInput(
            name: "valid-ber-indefinite+nested-junk", origin: "fixtures/valid-ber-indefinite, nested junk added",
            bytes: bytes)
    }()

    /// `depth` nested indefinite-length SEQUENCEs around NULLs, `size` bytes in all (one less when the
    /// leaves do not fill it evenly: a NULL takes two).
    static func nestedIndefinite(depth: Int, size: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(size)
        for _ in 0..<depth { bytes += [0x30, 0x80] }
        for _ in 0..<(size - depth * 4) / 2 { bytes += [0x05, 0x00] }
        for _ in 0..<depth { bytes += [0x00, 0x00] }
        return bytes
    }

    /// `{"receipt-data":"<base64>"}`, the body a client POSTs to verifyReceipt.
    static func requestBody(_ input: BenchInput) -> [UInt8] {
        Array("{\"receipt-data\":\"\(Base64.encode(input.bytes))\"}".utf8)
    }

    /// Decodes, or stops the run: a suite must never measure the error path by accident.
    static func decoded(_ input: BenchInput) -> AppReceipt {
        do {
            return try AppReceipt(berEncoded: input.bytes)
        } catch {
            fatalError("\(input.name) does not decode: \(error)")
        }
    }
}

/// Names a receipt of ``Inputs`` without reading it, so suites can be declared before their setup runs.
enum ReceiptChoice: Sendable {
    case small, large, minted1, minted100, minted1000, minted1MiB, nestedJunkReceipt

    var input: BenchInput {
        switch self {
        case .small: Inputs.small
        case .large: Inputs.large
        case .minted1: Inputs.minted1
        case .minted100: Inputs.minted100
        case .minted1000: Inputs.minted1000
        case .minted1MiB: Inputs.minted1MiB
        case .nestedJunkReceipt: Inputs.nestedJunkReceipt
        }
    }
}
