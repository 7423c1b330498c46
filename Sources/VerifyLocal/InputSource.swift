import ArgumentParser
import Foundation
import ReceiptModel

/// One receipt to process: a file, or standard input.
struct InputSource {
    /// The name shown in reports: the path as given or found, or `-`.
    let name: String
    let url: URL?

    /// File name endings taken from folders; anything else in a folder (READMEs, JSON, keys) is
    /// skipped. Files named explicitly are always read.
    static let receiptExtensions: Set<String> = [
        "receipt", "der", "p7", "p7m", "p7s", "pkcs7", "bin", "b64", "base64", "txt",
    ]

    /// Expands command-line inputs: folders recursively in path order, hidden entries skipped.
    static func expand(_ inputs: [String]) throws -> [InputSource] {
        var sources: [InputSource] = []
        for input in inputs {
            if input == "-" {
                sources.append(InputSource(name: "-", url: nil))
                continue
            }
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: input, isDirectory: &isDirectory) else {
                throw ValidationError("no such file or folder: \(input)")
            }
            guard isDirectory.boolValue else {
                sources.append(InputSource(name: input, url: URL(fileURLWithPath: input)))
                continue
            }
            let root = URL(fileURLWithPath: input, isDirectory: true)
            guard
                let walker = FileManager.default.enumerator(
                    at: root, includingPropertiesForKeys: [.isRegularFileKey], options: [.skipsHiddenFiles])
            else { throw ValidationError("cannot read the folder \(input)") }
            var found: [String] = []
            for case let url as URL in walker where receiptExtensions.contains(url.pathExtension.lowercased()) {
                let isFile = (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) ?? false
                if isFile {
                    let relative = url.path.dropFirst(root.path.count).drop { $0 == "/" }
                    found.append((input.hasSuffix("/") ? input : input + "/") + relative)
                }
            }
            sources += found.sorted().map { InputSource(name: $0, url: URL(fileURLWithPath: $0)) }
        }
        return sources
    }

    /// Reads the bytes, refusing files larger than any receipt input can be.
    func read() throws(ReceiptError) -> [UInt8] {
        let limit = ReceiptInput.maximumInputSize
        let handle: FileHandle
        if let url {
            do { handle = try FileHandle(forReadingFrom: url) } catch {
                throw ReceiptError(.unreadableInput, "cannot open \(name): \(error.localizedDescription)")
            }
        } else {
            handle = FileHandle.standardInput
        }
        defer { if url != nil { try? handle.close() } }
        // Read one byte past the limit so an oversized input is detected without reading it all.
        let data: Data?
        do { data = try handle.read(upToCount: limit + 1) } catch {
            throw ReceiptError(.unreadableInput, "cannot read \(name): \(error.localizedDescription)")
        }
        let bytes = [UInt8](data ?? Data())
        guard bytes.count <= limit else {
            throw ReceiptError(.tooLarge, "\(name) is larger than \(limit) bytes")
        }
        return bytes
    }
}
