import AppleStandIn
import Foundation
import Logging
import ReceiptModel
import ReceiptRemote
import ReceiptVerification
import TestSupport

/// Fixtures, verifiers and a running stand-in for the remote tests.
enum RemoteTestData {
    static let fixtures = SharedTestData.packageRoot.appendingPathComponent("fixtures")
    static let testRoot = SharedTestData.packageRoot.appendingPathComponent("certs/test-root.pem").path

    static func fixture(_ name: String) throws -> [UInt8] {
        try SharedTestData.bytes(at: fixtures.appendingPathComponent(name))
    }

    /// Trusts the project's test root, as the fixtures need.
    static func verifier() throws -> ReceiptVerifier {
        var anchors = TrustAnchors()
        try anchors.addRoots(fromPath: testRoot)
        return ReceiptVerifier(configuration: .init(trustAnchors: anchors))
    }

    /// A stand-in that checks signatures against the test root and Apple's pinned roots.
    static func standIn(
        sharedSecret: String? = nil, renewedUntil: ReceiptDate? = nil, logger: Logger = Logger(label: "standin")
    ) throws -> AppleStandIn {
        AppleStandIn(
            configuration: .init(
                verifier: try verifier(), sharedSecret: sharedSecret,
                now: { ReceiptDate(clampingMillisecondsSince1970: 1_767_225_600_000) }, renewedUntil: renewedUntil),
            logger: logger)
    }

    /// Fast, deterministic client settings against the stand-in.
    static func configuration(
        _ addresses: StandInAddresses, attemptTimeout: Duration = .seconds(60), deadline: Duration = .seconds(20),
        maximumAttempts: Int = 4, failureThreshold: Int = 50
    ) -> VerifyReceiptClient.Configuration {
        VerifyReceiptClient.Configuration(
            productionURL: addresses.productionURL, sandboxURL: addresses.sandboxURL, attemptTimeout: attemptTimeout,
            deadline: deadline,
            retry: RetryPolicy(
                maximumAttempts: maximumAttempts, initialBackoff: .seconds(1), maximumBackoff: .seconds(8)),
            circuitBreaker: .init(failureThreshold: failureThreshold, coolDown: .seconds(30)))
    }

    static func client(
        _ configuration: VerifyReceiptClient.Configuration, clock: ManualClock = ManualClock(),
        logger: Logger = Logger(label: "client")
    ) throws -> VerifyReceiptClient {
        try VerifyReceiptClient(configuration: configuration, clock: clock, random: { 0.5 }, logger: logger)
    }

}

/// A loopback port that refuses connections for as long as this value lives: bound, never listening.
///
/// Keeping it bound matters: a port released at once can be handed by the kernel to a stand-in that a test
/// running in parallel starts, which would then answer for "unreachable Apple".
final class ClosedPort: Sendable {
    let port: Int
    private let descriptor: Int32

    /// `http://127.0.0.1:PORT/verifyReceipt` on this port.
    var url: String { "http://127.0.0.1:\(port)/verifyReceipt" }

    init() throws {
        let descriptor = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw CocoaError(.fileWriteUnknown) }
        self.descriptor = descriptor
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic in
                Glibc.bind(descriptor, generic, length) == 0 && getsockname(descriptor, generic, &length) == 0
            }
        }
        guard bound else {
            Glibc.close(descriptor)
            throw CocoaError(.fileWriteUnknown)
        }
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    deinit { Glibc.close(descriptor) }
}
