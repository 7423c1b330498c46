public import Hummingbird

/// Reads a request body whole, within a size limit and a time limit.
///
/// The size limit is checked against `Content-Length` before reading and against the bytes as they
/// arrive (chunked bodies have no length). The time limit bounds a client that sends its head and
/// then stalls: the read is raced against a timer and abandoned when the timer wins.
public struct BodyReader: Sendable {
    /// The largest body accepted, in bytes.
    public let maximumSize: Int
    /// The longest wait for the whole body.
    public let timeout: Duration

    public init(maximumSize: Int, timeout: Duration) {
        self.maximumSize = maximumSize
        self.timeout = timeout
    }

    /// The body's bytes.
    /// - Throws: ``ServerError`` ``ServerError/Code/bodyTooLarge``, ``ServerError/Code/bodyTimeout`` or
    ///   ``ServerError/Code/incompleteBody``.
    public func read(_ request: Request) async throws(ServerError) -> [UInt8] {
        let declared = request.headers[.contentLength].flatMap { Int($0) }
        if let declared, declared > maximumSize {
            throw ServerError(.bodyTooLarge, "the body is \(declared) bytes; the limit is \(maximumSize)")
        }
        let body = request.body
        let limit = maximumSize
        let timeout = timeout
        let outcome: Result<[UInt8], ServerError> = await withTaskGroup(of: Result<[UInt8], ServerError>?.self) {
            group in
            group.addTask { await Self.collect(body, limit: limit, expected: declared) }
            group.addTask {
                // Cancelled (and so returning early) as soon as the body is complete.
                try? await Task.sleep(for: timeout)
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first ?? .failure(ServerError(.bodyTimeout, "the body did not arrive within \(timeout)"))
        }
        return try outcome.get()
    }

    static func collect(_ body: RequestBody, limit: Int, expected: Int?) async -> Result<[UInt8], ServerError> {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(min(expected ?? 16 * 1024, limit))
        do {
            for try await buffer in body {
                guard bytes.count + buffer.readableBytes <= limit else {
                    return .failure(ServerError(.bodyTooLarge, "the body exceeds the limit of \(limit) bytes"))
                }
                bytes.append(contentsOf: buffer.readableBytesView)
            }
        } catch {
            return .failure(ServerError(.incompleteBody, "the body could not be read: \(type(of: error))"))
        }
        return .success(bytes)
    }
}
