public import Foundation

#if canImport(FoundationNetworking)
    public import FoundationNetworking
#endif

/// An HTTP client for servers a test started on 127.0.0.1: many requests in flight at once, nothing cached,
/// every answer read whole.
public final class LoopbackHTTPClient: Sendable {
    private let session: URLSession

    /// An answer: the status, the headers (names lowercased) and the body.
    public struct Answer: Sendable {
        public let status: Int
        public let headers: [String: String]
        public let body: Data

        /// The body as a JSON object.
        public func json() throws -> [String: Any] {
            guard let object = try JSONSerialization.jsonObject(with: body) as? [String: Any] else {
                throw CocoaError(.propertyListReadCorrupt)
            }
            return object
        }
    }

    /// - Parameters:
    ///   - maximumConnections: connections per server at once (URLSession's default is 6, too few to load one).
    ///   - timeout: how long a request may wait for data before it fails.
    public init(maximumConnections: Int = 64, timeout: TimeInterval = 60) {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpMaximumConnectionsPerHost = maximumConnections
        configuration.timeoutIntervalForRequest = timeout
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        session = URLSession(configuration: configuration)
    }

    deinit { session.invalidateAndCancel() }

    /// `POST path` on `127.0.0.1:port` with a JSON body.
    public func post(port: Int, _ path: String, json body: Data) async throws -> Answer {
        var request = URLRequest(url: Self.url(port, path))
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = body
        return try await send(request)
    }

    /// `GET path` on `127.0.0.1:port`.
    public func get(port: Int, _ path: String) async throws -> Answer {
        try await send(URLRequest(url: Self.url(port, path)))
    }

    private func send(_ request: URLRequest) async throws -> Answer {
        let (body, response) = try await session.data(for: request)
        guard let response = response as? HTTPURLResponse else { throw URLError(.badServerResponse) }
        var headers: [String: String] = [:]
        for (name, value) in response.allHeaderFields {
            if let name = name as? String, let value = value as? String { headers[name.lowercased()] = value }
        }
        return Answer(status: response.statusCode, headers: headers, body: body)
    }

    private static func url(_ port: Int, _ path: String) -> URL {
        // swift-format-ignore: NeverForceUnwrap
        URL(string: "http://127.0.0.1:\(port)\(path)")!  // tests pass literal, percent-safe paths
    }
}
