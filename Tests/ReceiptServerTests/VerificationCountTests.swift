import AppleStandIn
import Foundation
import HTTPTypes
import HummingbirdTesting
import ReceiptIntake
import ReceiptModel
import ReceiptRemote
import ReceiptServer
import ReceiptVerification
import Synchronization
import TestSupport
import Testing

/// The intake verifies a receipt once, whatever comes after: the ledger consulted between the fallback's two
/// halves, and Apple asked after it.
@Suite("one local verification per receipt", .timeLimit(.minutes(2)))
struct VerificationCountTests {
    typealias Attack = LedgerAttackTests

    /// Wraps the real fallback and counts each half.
    final class CountingDecider: ReceiptDecider {
        let inner: FallbackVerifier
        private let counts = Mutex((local: 0, apple: 0))

        init(_ inner: FallbackVerifier) { self.inner = inner }

        var local: Int { counts.withLock { $0.local } }
        var apple: Int { counts.withLock { $0.apple } }

        func verifyLocally(_ receiptData: ArraySlice<UInt8>, request: FallbackRequest) async -> LocalVerification {
            counts.withLock { $0.local += 1 }
            return inner.verifyLocally(receiptData, request: request)
        }

        func askApple(_ local: LocalVerification, request: FallbackRequest) async -> AttributedVerdict {
            counts.withLock { $0.apple += 1 }
            return await inner.askApple(local, request: request)
        }

        var cacheStatistics: ChainCacheStatistics { inner.cacheStatistics }
        var policy: ReceiptPolicy { inner.policy }
        var jwsVerifier: ReceiptVerifier { inner.verifier }
    }

    /// A lapsed subscription asked about with the shared secret, the ledger on and knowing nothing newer: the ledger
    /// is read, Apple decides, and the receipt was verified locally exactly once (before, it was verified once to
    /// consult the ledger and again by the fallback on its way to Apple).
    @Test(arguments: Attack.Store.allCases)
    func aVerifyReceiptThatEndsAtAppleVerifiesLocallyOnce(store: Attack.Store) async throws {
        guard store.isAvailable else { return }
        let place = try await Attack.Place(store)
        let ledger = try await place.ledger()
        let standIn = AppleStandIn()
        standIn.setDefault(.sandbox, .body(Attack.interceptedAnswer))
        standIn.setDefault(.production, .body(Attack.interceptedAnswer))
        let receipt = try Attack.receipt()
        let now = try #require(ReceiptDate(rfc3339: "2026-01-01T00:00:00Z"))
        try await standIn.withRunning { addresses in
            let decider = CountingDecider(
                try FallbackVerifier.apple(
                    verifier: Attack.verifier(), productionURL: addresses.productionURL,
                    sandboxURL: addresses.sandboxURL, deadline: .seconds(60), logger: ServerTestSupport.quietLogger))
            let service = try Attack.service(ledger: ledger, decider: decider, sharedSecret: "secret", now: now)
            let responses = try await Attack.exchange(
                [
                    Attack.Call(
                        path: "/sandbox/verifyReceipt",
                        body: Attack.json(["receipt-data": receipt, "password": "secret"]))
                ], service)
            #expect(responses[0].headers[.init("X-Receipt-Decided-By")!] == "remote", "Apple decided")
            #expect(decider.local == 1, "one local verification")
            #expect(decider.apple == 1)
        }
    }

    /// Without the shared secret nothing goes to Apple: one local verification, and the second half answers the
    /// local verdict without asking.
    @Test func aReceiptDecidedLocallyIsVerifiedOnce() async throws {
        let place = try await Attack.Place(.sqlite)
        let ledger = try await place.ledger()
        let decider = CountingDecider(FallbackVerifier(verifier: try Attack.verifier()))
        let service = try Attack.service(ledger: ledger, decider: decider)
        let responses = try await Attack.exchange(
            [Attack.Call(path: "/verifyReceipt", body: Attack.json(["receipt-data": try Attack.receipt()]))], service)
        #expect(responses[0].headers[.init("X-Receipt-Decided-By")!] == "local")
        #expect(decider.local == 1)
    }
}
