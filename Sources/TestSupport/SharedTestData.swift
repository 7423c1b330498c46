public import Foundation
public import Testing

/// Locates the real Apple receipts and public roots in `../shared`, beside the repository.
///
/// Those files are never copied into the repository, so tests read them from there and are skipped
/// with ``skipMessage`` when the folder is absent. `RECEIPT_SHARED_DIR` overrides the location.
public enum SharedTestData {
    /// Shown by Swift Testing for every test skipped because `../shared` is missing.
    public static let skipMessage: Comment =
        "../shared/receipts is absent: real Apple receipt tests are skipped (they read ../shared, never copies)"

    /// The repository's root folder, derived from this source file's location.
    public static let packageRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // TestSupport
        .deletingLastPathComponent()  // Sources
        .deletingLastPathComponent()

    /// `../shared`, or the folder `RECEIPT_SHARED_DIR` names.
    public static let sharedDirectory: URL = {
        if let override = ProcessInfo.processInfo.environment["RECEIPT_SHARED_DIR"], !override.isEmpty {
            return URL(fileURLWithPath: override)
        }
        return packageRoot.deletingLastPathComponent().appendingPathComponent("shared")
    }()

    public static var receiptsDirectory: URL { sharedDirectory.appendingPathComponent("receipts") }
    public static var certsDirectory: URL { sharedDirectory.appendingPathComponent("certs") }

    /// `true` when the real receipts are present.
    public static let isAvailable: Bool = FileManager.default.fileExists(
        atPath: sharedDirectory.appendingPathComponent("receipts/README.md").path)

    /// The base names (without `.receipt`) of every real app receipt, sorted; empty when absent.
    public static let receiptNames: [String] = {
        guard
            let names = try? FileManager.default.contentsOfDirectory(atPath: receiptsDirectory.path)
        else { return [] }
        return names.filter { $0.hasSuffix(".receipt") }.map { String($0.dropLast(".receipt".count)) }.sorted()
    }()

    /// The raw bytes of `receipts/NAME.receipt`.
    public static func receiptBytes(_ name: String) throws -> [UInt8] {
        try bytes(at: receiptsDirectory.appendingPathComponent("\(name).receipt"))
    }

    /// The text of `receipts/jws/NAME.jws`.
    public static func jwsText(_ name: String) throws -> String {
        String(decoding: try bytes(at: receiptsDirectory.appendingPathComponent("jws/\(name).jws")), as: UTF8.self)
    }

    /// The parsed `receipts/NAME.decoded.json` (the independent decoder's reading).
    public static func decodedJSON(_ name: String) throws -> [String: Any] {
        try json(at: receiptsDirectory.appendingPathComponent("\(name).decoded.json"))
    }

    /// Reads a whole file as bytes.
    public static func bytes(at url: URL) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: url))
    }

    /// Reads a JSON object file.
    public static func json(at url: URL) throws -> [String: Any] {
        let object = try JSONSerialization.jsonObject(with: Data(contentsOf: url))
        guard let dictionary = object as? [String: Any] else {
            throw CocoaError(.fileReadCorruptFile, userInfo: [NSFilePathErrorKey: url.path])
        }
        return dictionary
    }

    /// A built executable of this package (`verify-local`, `mint-receipt`, …), found beside the test
    /// runner so it works with any `--scratch-path`.
    public static func executable(_ name: String) -> URL {
        let runner = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        var folder = runner.deletingLastPathComponent()
        // The runner may sit inside an .xctest bundle folder (…/debug/X.xctest/Contents/MacOS).
        while folder.path != "/" && !FileManager.default.fileExists(atPath: folder.appendingPathComponent(name).path) {
            folder = folder.deletingLastPathComponent()
        }
        return folder.appendingPathComponent(name)
    }
}
