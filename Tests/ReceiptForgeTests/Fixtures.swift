import Foundation
import ReceiptForge
import TestSupport

/// The committed fixture catalogue: requests in `fixtures/descriptions/`, minted files beside them.
enum Fixtures {
    static let directory = SharedTestData.packageRoot.appendingPathComponent("fixtures")
    static let pki = TestPKI(directory: SharedTestData.packageRoot.appendingPathComponent("certs"))
    static let testRoot = SharedTestData.packageRoot.appendingPathComponent("certs/test-root.pem")

    /// Every request's name (the file name without `.json`), sorted.
    static let names: [String] = {
        let folder = directory.appendingPathComponent("descriptions")
        let files = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return files.filter { $0.hasSuffix(".json") }.map { String($0.dropLast(5)) }.sorted()
    }()

    static func request(_ name: String) throws -> MintRequest {
        try MintRequest(json: Data(contentsOf: directory.appendingPathComponent("descriptions/\(name).json")))
    }

    static func fileURL(_ name: String, _ request: MintRequest) -> URL {
        directory.appendingPathComponent("\(name).\(request.fileExtension)")
    }

    /// The committed receipt bytes, base64-decoded when the fixture is base64 text.
    static func receiptBytes(_ name: String, _ request: MintRequest) throws -> [UInt8] {
        let data = try Data(contentsOf: fileURL(name, request))
        guard request.isBase64 else { return [UInt8](data) }
        guard let decoded = Data(base64Encoded: data) else { throw CocoaError(.fileReadCorruptFile) }
        return [UInt8](decoded)
    }

    /// The parsed `NAME.expected.json`.
    static func expectation(_ name: String) throws -> [String: Any] {
        try SharedTestData.json(at: directory.appendingPathComponent("\(name).expected.json"))
    }
}
