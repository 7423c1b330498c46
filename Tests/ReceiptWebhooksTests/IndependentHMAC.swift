import Foundation

/// HMAC-SHA256 computed outside this package (python3's `hmac`), to check the signer against an implementation
/// that shares none of its code.
enum IndependentHMAC {
    static let python = URL(fileURLWithPath: "/usr/bin/python3")

    static var available: Bool { FileManager.default.isExecutableFile(atPath: python.path) }

    /// The hex HMAC-SHA256 of `message` keyed by `secret`'s UTF-8 bytes.
    static func hex(secret: String, message: [UInt8]) throws -> String {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("hmac-\(UUID().uuidString)")
        try Data(message).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let process = Process()
        process.executableURL = python
        process.arguments = [
            "-c",
            "import hmac, hashlib, sys; "
                + "print(hmac.new(sys.argv[1].encode(), open(sys.argv[2], 'rb').read(), hashlib.sha256).hexdigest())",
            secret, file.path,
        ]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The header's `t` and its `v1` values, in order; `nil` when it is not `t=<digits>(,v1=<hex>)+`.
    static func parse(_ header: String) -> (t: String, v1: [String])? {
        let parts = header.split(separator: ",").map(String.init)
        guard let first = parts.first, first.hasPrefix("t="), parts.count >= 2 else { return nil }
        let t = String(first.dropFirst(2))
        guard !t.isEmpty, t.allSatisfy(\.isNumber) else { return nil }
        var values: [String] = []
        for part in parts.dropFirst() {
            guard part.hasPrefix("v1=") else { return nil }
            values.append(String(part.dropFirst(3)))
        }
        return (t, values)
    }

    /// Whether `header` signs `body` with each of `secrets`, in order, as a receiver would check it.
    static func verifies(_ header: String, body: [UInt8], secrets: [String]) throws -> Bool {
        guard let (t, values) = parse(header), values.count == secrets.count else { return false }
        let message = Array("\(t).".utf8) + body
        for (secret, value) in zip(secrets, values) where try hex(secret: secret, message: message) != value {
            return false
        }
        return true
    }
}
