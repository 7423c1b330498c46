import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import ReceiptIntake
@_spi(Fuzzing) import ReceiptModel
import ReceiptRemote
import ReceiptServer
import ReceiptVerification
import ServiceLifecycle
import Synchronization
import TestSupport
import Testing

/// Shared set-up for the server tests: a fixed clock, verifiers trusting the project's test root,
/// fixture and real-receipt loading, and JSON helpers.
enum ServerTestSupport {
    /// The clock every test server reads: 2023-11-14T22:13:20.123Z.
    static let fixedNow = ReceiptDate(clampingMillisecondsSince1970: 1_700_000_000_123)

    static let fixturesDirectory = SharedTestData.packageRoot.appendingPathComponent("fixtures")
    static let testRootPath = SharedTestData.packageRoot.appendingPathComponent("certs/test-root.pem").path

    /// A verifier trusting Apple's pinned roots, the project's test root and, when asked, Xcode.
    static func verifier(allowXcode: Bool = false) throws -> ReceiptVerifier {
        var anchors = TrustAnchors(allowsXcodeStoreKitTesting: allowXcode)
        try anchors.addRoots(fromPath: testRootPath)
        return ReceiptVerifier(configuration: .init(trustAnchors: anchors))
    }

    static func configuration(
        acceptsAnyEnvironment: Bool = false, sharedSecret: String? = nil, maximumBodySize: Int = 1 << 20,
        maximumInFlight: Int = 64, bodyTimeout: Duration = .seconds(10),
        validationTime: ValidationTime = .receiptCreation
    ) -> ReceiptServerConfiguration {
        ReceiptServerConfiguration(
            host: "127.0.0.1", port: 0, validationTime: validationTime, acceptsAnyEnvironment: acceptsAnyEnvironment,
            sharedSecret: sharedSecret, maximumBodySize: maximumBodySize, maximumInFlight: maximumInFlight,
            bodyTimeout: bodyTimeout, idleTimeout: .seconds(30), clock: { fixedNow })
    }

    static var quietLogger: Logger {
        var logger = Logger(label: "receipt-server-test")
        logger.logLevel = .warning
        return logger
    }

    static func service(
        _ configuration: ReceiptServerConfiguration = configuration(), decider: (any ReceiptDecider)? = nil,
        allowXcode: Bool = false
    ) throws -> ReceiptService {
        let decider = try decider ?? FallbackVerifier(verifier: verifier(allowXcode: allowXcode))
        return ReceiptService(configuration: configuration, decider: decider, logger: quietLogger)
    }

    static func fixture(_ name: String) throws -> [UInt8] {
        try SharedTestData.bytes(at: fixturesDirectory.appendingPathComponent(name))
    }

    /// `{"receipt-data": base64, …}` as a request body.
    static func appleRequest(_ receipt: [UInt8], password: String? = nil, excludeOld: Bool? = nil) -> ByteBuffer {
        var writer = JSONWriter()
        writer.beginObject()
        writer.field("receipt-data", Base64.encode(receipt))
        if let password { writer.field("password", password) }
        if let excludeOld { writer.field("exclude-old-transactions", excludeOld) }
        writer.endObject()
        return ByteBuffer(bytes: writer.bytes)
    }

    static func bytes(_ buffer: ByteBuffer) -> [UInt8] { Array(buffer.readableBytesView) }

    /// The response body parsed as a JSON object.
    static func object(_ buffer: ByteBuffer) throws -> [String: Any] {
        let value = try JSONSerialization.jsonObject(with: Data(bytes(buffer)))
        return try #require(value as? [String: Any])
    }

    static func status(_ buffer: ByteBuffer) throws -> Int {
        try #require(try object(buffer)["status"] as? Int)
    }

    /// The bytes of the `"receipt":{…}` value inside a verifyReceipt body, found by matching braces.
    static func receiptObjectBytes(_ body: [UInt8]) throws -> [UInt8] {
        let key = Array(#""receipt":"#.utf8)
        let start = try #require(body.firstRange(of: key)).upperBound
        var depth = 0
        var inString = false
        var escaped = false
        for index in start..<body.count {
            let byte = body[index]
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""): inString = true
            case UInt8(ascii: "{"): depth += 1
            case UInt8(ascii: "}"):
                depth -= 1
                if depth == 0 { return Array(body[start...index]) }
            default: break
            }
        }
        Issue.record("unbalanced receipt object")
        return []
    }

    /// The JSON kind of a parsed value. Receipt JSON has no booleans (Apple writes "true" as a string).
    static func jsonKind(_ value: Any) -> String {
        switch value {
        case is String: "string"
        case is NSNumber: "number"
        case is [Any]: "array"
        case is [String: Any]: "object"
        case is NSNull: "null"
        default: "\(type(of: value))"
        }
    }
}

/// A decider that holds each request until opened, to make requests observably in flight.
final class GatedDecider: ReceiptDecider {
    private struct State {
        var isOpen = false
        var waiters: [CheckedContinuation<Void, Never>] = []
        var arrived = 0
    }
    let inner: FallbackVerifier
    private let state = Mutex(State())

    init(verifier: ReceiptVerifier) {
        inner = FallbackVerifier(verifier: verifier)
    }

    var cacheStatistics: ChainCacheStatistics { inner.cacheStatistics }

    var policy: ReceiptPolicy { inner.policy }

    var jwsVerifier: ReceiptVerifier { inner.verifier }

    func verifyLocally(_ receiptData: ArraySlice<UInt8>, request: FallbackRequest) async -> LocalVerification {
        await withCheckedContinuation { continuation in
            let resumeNow = state.withLock { state in
                state.arrived += 1
                if state.isOpen { return true }
                state.waiters.append(continuation)
                return false
            }
            if resumeNow { continuation.resume() }
        }
        return inner.verifyLocally(receiptData, request: request)
    }

    func askApple(_ local: LocalVerification, request: FallbackRequest) async -> AttributedVerdict {
        await inner.askApple(local, request: request)
    }

    /// Requests that reached the decider so far.
    var arrived: Int { state.withLock { $0.arrived } }

    /// Waits (bounded) until `count` requests reached the decider.
    func waitForArrivals(_ count: Int, timeout: Duration = .seconds(60)) async throws {
        let deadline = ContinuousClock.now + timeout
        while arrived < count {
            guard ContinuousClock.now < deadline else { throw CancellationError() }
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    /// Lets every waiting and future request through.
    func open() {
        let waiters = state.withLock { state in
            state.isOpen = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

}
