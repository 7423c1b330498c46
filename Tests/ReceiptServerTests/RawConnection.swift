import Foundation
import Glibc

/// A blocking TCP connection to 127.0.0.1 for what an HTTP client will not do: send a head and stall,
/// declare 50 MB and stream it, read whatever comes back. Every read is bounded by a receive timeout.
final class RawConnection: @unchecked Sendable {
    // @unchecked: the only state is the descriptor, set once in init and closed in deinit; each test
    // uses a connection from one task at a time.
    let descriptor: Int32

    init(port: Int, receiveTimeoutSeconds: Int = 60) throws {
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw RawConnectionError.socket }
        var timeout = timeval(tv_sec: receiveTimeoutSeconds, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard result == 0 else {
            Glibc.close(descriptor)
            throw RawConnectionError.connect
        }
    }

    deinit { Glibc.close(descriptor) }

    /// Sends all bytes; `false` when the peer closed or reset the connection (never raises SIGPIPE).
    @discardableResult
    func send(_ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes {
                Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            if sent <= 0 { return false }
            offset += sent
        }
        return true
    }

    @discardableResult
    func send(_ text: String) -> Bool { send(Array(text.utf8)) }

    /// Reads until the peer closes, the receive timeout passes, or a whole response with
    /// Content-Length has arrived.
    func receiveResponse() -> String {
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count <= 0 { break }
            received += buffer[0..<count]
            if Self.isComplete(received) { break }
        }
        return String(decoding: received, as: UTF8.self)
    }

    /// `true` when the peer has closed the connection (read returns 0 or fails other than by timeout).
    func waitForClose() -> Bool {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count == 0 { return true }
            if count < 0 { return errno != EAGAIN && errno != EWOULDBLOCK }
        }
    }

    func shutdownWrite() { shutdown(descriptor, Int32(SHUT_WR)) }

    static func isComplete(_ bytes: [UInt8]) -> Bool {
        guard let headEnd = bytes.firstRange(of: Array("\r\n\r\n".utf8)) else { return false }
        let head = String(decoding: bytes[..<headEnd.lowerBound], as: UTF8.self).lowercased()
        for line in head.split(separator: "\r\n") where line.hasPrefix("content-length:") {
            let length = Int(line.dropFirst("content-length:".count).trimmingCharacters(in: " ")) ?? 0
            return bytes.count - headEnd.upperBound >= length
        }
        return false
    }

    /// The status code of a raw response (`HTTP/1.1 413 …`), or 0.
    static func statusCode(_ response: String) -> Int {
        let parts = response.split(separator: " ", maxSplits: 2)
        return parts.count >= 2 ? Int(parts[1]) ?? 0 : 0
    }
}

enum RawConnectionError: Error {
    case socket
    case connect
}

extension Substring {
    func trimmingCharacters(in set: Character) -> Substring {
        var text = self
        while text.first == set { text = text.dropFirst() }
        while text.last == set { text = text.dropLast() }
        return text
    }
}

/// Runs blocking socket work on its own thread, so it never occupies the Swift concurrency pool that
/// the in-process server's handlers need (on a 2-core machine that pool has two threads).
func onOwnThread<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        let thread = Thread { continuation.resume(returning: work()) }
        thread.start()
    }
}
