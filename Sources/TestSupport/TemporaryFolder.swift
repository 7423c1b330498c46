public import Foundation

/// A temporary folder removed when the value is dropped.
public final class TemporaryFolder {
    public let url: URL

    public init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("receipt-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    @discardableResult
    public func write(_ name: String, _ bytes: some DataProtocol) throws -> URL {
        let file = url.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(bytes).write(to: file)
        return file
    }

    deinit { try? FileManager.default.removeItem(at: url) }
}
