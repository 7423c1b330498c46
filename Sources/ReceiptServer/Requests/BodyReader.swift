package import Hummingbird

/// Reads a request body whole, within a size limit and a time limit.
///
/// The size limit is checked against `Content-Length` before reading and against the bytes as they
/// arrive (chunked bodies have no length). The time limit bounds a client that sends its head and
/// then stalls: the read runs as its own task, which ``BodyDeadlines`` cancels once it is late.
package struct BodyReader: Sendable {
    /// The largest body accepted, in bytes.
    package let maximumSize: Int
    /// The longest wait for the whole body; zero or less turns the per-request timer off (the
    /// connection's idle timeout then bounds a stalled body, closing the connection without an answer).
    package let timeout: Duration

    let deadlines: BodyDeadlines

    package init(maximumSize: Int, timeout: Duration) {
        self.maximumSize = maximumSize
        self.timeout = timeout
        // Late reads are cancelled within a tenth of the timeout (at most 250 ms) of their deadline.
        deadlines = BodyDeadlines(granularity: min(timeout / 10, .milliseconds(250)))
    }

    /// The body's bytes.
    /// - Throws: ``ServerError`` ``ServerError/Code/bodyTooLarge``, ``ServerError/Code/bodyTimeout`` or
    ///   ``ServerError/Code/incompleteBody``.
    package func read(_ request: Request) async throws(ServerError) -> [UInt8] {
        let declared = request.headers[.contentLength].flatMap { Int($0) }
        if let declared, declared > maximumSize {
            throw ServerError(.bodyTooLarge, "the body is \(declared) bytes; the limit is \(maximumSize)")
        }
        let body = request.body
        let limit = maximumSize
        guard timeout > .zero else {
            // No per-request timer: only the connection's idle timeout bounds a stalled body.
            return try await Self.collect(body, limit: limit, expected: declared).get()
        }
        let read = Task { await Self.collect(body, limit: limit, expected: declared) }
        let ticket = deadlines.register(read, deadline: .now + timeout)
        let result = await withTaskCancellationHandler {
            await read.value
        } onCancel: {
            read.cancel()
        }
        if deadlines.finish(ticket) {
            throw ServerError(.bodyTimeout, "the body did not arrive within \(timeout)")
        }
        return try result.get()
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
