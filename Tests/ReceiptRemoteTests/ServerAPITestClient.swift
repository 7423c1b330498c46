import AppleStandIn
import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import ReceiptCrypto
import ReceiptForge
import ReceiptModel
import ReceiptVerification
import TestSupport

/// Calls the stand-in's App Store Server API as a client would: AsyncHTTPClient, a fresh ES256 token per request.
struct ServerAPITestClient {
    /// What one call got.
    struct Answer {
        let status: Int
        let retryAfter: String?
        let body: [UInt8]

        /// The body as a JSON object (Foundation's reader: independent of the stand-in's writer).
        func json() throws -> [String: Any] {
            guard let object = try JSONSerialization.jsonObject(with: Data(body)) as? [String: Any] else {
                throw CocoaError(.propertyListReadCorrupt)
            }
            return object
        }
    }

    static let certs = SharedTestData.packageRoot.appendingPathComponent("certs")
    static let minter = JWSMinter(pki: TestPKI(directory: certs))
    static let keyPEM: String =
        (try? String(
            contentsOf: certs.appendingPathComponent("test-only-keys/test-app-store-api.key.pem"), encoding: .utf8))
        ?? ""
    static let keyID = "TESTKEY001"
    static let issuer = "issuer-for-tests"
    static let bundleID = "com.example.standin.tests"

    /// The stand-in's check of tokens signed by the test in-app purchase key.
    static func authorization() throws -> ServerAPIAuthorization {
        try ServerAPIAuthorization(privateKeyPEM: keyPEM, keyID: keyID, issuerID: issuer)
    }

    /// Trusts the test JWS root, as the stand-in's answers need.
    static func verifier() throws -> ReceiptVerifier {
        var anchors = TrustAnchors()
        try anchors.addRoots(fromPath: certs.appendingPathComponent("test-jws-root.pem").path)
        return ReceiptVerifier(configuration: .init(trustAnchors: anchors))
    }

    let baseURL: String

    /// A JWT as Apple's clients make it; each argument changes one thing.
    static func token(
        keyPEM: String = keyPEM, kid: String = keyID, iss: String = issuer, aud: String = "appstoreconnect-v1",
        bid: String = bundleID, lifetime: Int64 = 300, issuedAgo: Int64 = 0
    ) throws -> String {
        let now = Int64(Date().timeIntervalSince1970) - issuedAgo
        let header = try JSONSerialization.data(withJSONObject: ["alg": "ES256", "kid": kid, "typ": "JWT"])
        let payload = try JSONSerialization.data(withJSONObject: [
            "iss": iss, "iat": now, "exp": now + lifetime, "aud": aud, "bid": bid,
        ])
        let signingInput = base64URL(header) + "." + base64URL(payload)
        let signature = try PrivateKey(pem: keyPEM).signES256(message: Array(signingInput.utf8)[...])
        return signingInput + "." + base64URL(Data(signature))
    }

    static func base64URL(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// One request; `token` `nil` sends a fresh valid one, `""` none at all.
    func call(
        _ method: HTTPMethod, _ pathAndQuery: String, body: [UInt8]? = nil, token: String? = nil
    ) async throws -> Answer {
        var request = HTTPClientRequest(url: baseURL + pathAndQuery)
        request.method = method
        let bearer = try token ?? Self.token()
        if !bearer.isEmpty { request.headers.add(name: "Authorization", value: "Bearer \(bearer)") }
        if let body {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(bytes: body))
        }
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
        let collected = try await response.body.collect(upTo: 16 * 1024 * 1024)
        return Answer(
            status: Int(response.status.code), retryAfter: response.headers.first(name: "Retry-After"),
            body: Array(collected.readableBytesView))
    }
}
