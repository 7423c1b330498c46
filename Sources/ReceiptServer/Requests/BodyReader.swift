package import Hummingbird
import NIOCore

/// Reads a request body whole, within a size limit and a time limit.
///
/// The size limit is checked against `Content-Length` before reading and against the bytes as they arrive (chunked
/// bodies have no length). The time limit bounds a client that sends its head and then stalls: ``BodyDeadlineHandler``,
/// in the connection's pipeline, fails the body's stream once it is late, and the read ends with 408. The body is
/// read in the request's own task, with no task or timer of its own.
package struct BodyReader: Sendable {
    /// The largest body accepted, in bytes.
    package let maximumSize: Int
    /// The longest wait for the whole body, from the request's head to its end; zero or less turns the timer off (the
    /// connection's idle timeout then bounds a stalled body, closing the connection without an answer).
    package let timeout: Duration

    package init(maximumSize: Int, timeout: Duration) {
        self.maximumSize = maximumSize
        self.timeout = timeout
    }

    /// The handler that enforces ``timeout`` on a connection, or `nil` when it is off.
    func deadlineHandler() -> BodyDeadlineHandler? {
        timeout > .zero ? BodyDeadlineHandler(timeout: TimeAmount(timeout)) : nil
    }

    /// The body's bytes.
    /// - Throws: ``ServerError`` ``ServerError/Code/bodyTooLarge``, ``ServerError/Code/bodyTimeout`` or
    ///   ``ServerError/Code/incompleteBody``.
    nonisolated(nonsending) package func read(_ request: Request) async throws(ServerError) -> [UInt8] {
        let declared = request.headers[.contentLength].flatMap { Int($0) }
        if let declared, declared > maximumSize {
            throw ServerError(.bodyTooLarge, "the body is \(declared) bytes; the limit is \(maximumSize)")
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(min(declared ?? 16 * 1024, maximumSize))
        do {
            for try await buffer in request.body {
                guard bytes.count + buffer.readableBytes <= maximumSize else {
                    throw ServerError(.bodyTooLarge, "the body exceeds the limit of \(maximumSize) bytes")
                }
                bytes.append(contentsOf: buffer.readableBytesView)
            }
        } catch let error as ServerError {
            throw error
        } catch is BodyDeadlineHandler.Exceeded {
            throw ServerError(.bodyTimeout, "the body did not arrive within \(timeout)")
        } catch {
            throw ServerError(.incompleteBody, "the body could not be read: \(type(of: error))")
        }
        return bytes
    }
}
