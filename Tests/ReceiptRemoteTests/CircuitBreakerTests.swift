import AppleStandIn
import ReceiptModel
import ReceiptVerification
import Testing

@testable import ReceiptRemote

/// The breaker opens after consecutive failures, refuses without calling Apple, lets one probe through
/// after the cool-down and closes on its success. Time moves on a ``ManualClock``.
@Suite(.timeLimit(.minutes(1)))
struct CircuitBreakerTests {
    @Test func opensAfterTheThresholdAndRecoversAfterTheCoolDown() async throws {
        let receipt = try RemoteTestData.fixture("valid-sha1.receipt")
        let standIn = try RemoteTestData.standIn()
        standIn.script(.production, Array(repeating: .httpStatus(503), count: 3))
        let clock = ManualClock()
        try await standIn.withRunning { addresses in
            let client = try RemoteTestData.client(
                RemoteTestData.configuration(addresses, maximumAttempts: 1, failureThreshold: 3), clock: clock)
            let request = try VerifyReceiptRequest(receiptBytes: receipt)
            for _ in 0..<3 {
                await #expect(throws: RemoteError.self) { try await client.verify(request) }
            }
            #expect(client.circuitBreaker.currentState == .open)

            // Open: refused at once, Apple is not called.
            let refused = await #expect(throws: RemoteError.self) { try await client.verify(request) }
            #expect(refused?.code == .circuitOpen)
            #expect(standIn.callCount(.production) == 3)

            // After the cool-down one probe goes through; Apple is back, so the breaker closes.
            clock.advance(by: .seconds(31))
            #expect(client.circuitBreaker.currentState == .halfOpen)
            let response = try await client.verify(request)
            #expect(response.status == 0)
            #expect(client.circuitBreaker.currentState == .closed)
            #expect(standIn.callCount(.production) == 4)
        }
    }

    @Test func aFailedProbeOpensItAgain() async throws {
        let receipt = try RemoteTestData.fixture("valid-sha1.receipt")
        let standIn = try RemoteTestData.standIn()
        standIn.setDefault(.production, .httpStatus(500))
        let clock = ManualClock()
        try await standIn.withRunning { addresses in
            let client = try RemoteTestData.client(
                RemoteTestData.configuration(addresses, maximumAttempts: 1, failureThreshold: 2), clock: clock)
            let request = try VerifyReceiptRequest(receiptBytes: receipt)
            for _ in 0..<2 { await #expect(throws: RemoteError.self) { try await client.verify(request) } }
            #expect(client.circuitBreaker.currentState == .open)
            clock.advance(by: .seconds(30))
            let probe = await #expect(throws: RemoteError.self) { try await client.verify(request) }
            #expect(probe?.code == .unavailable)
            #expect(client.circuitBreaker.currentState == .open)
            #expect(standIn.callCount(.production) == 3)
        }
    }

    @Test func retriesStopWhenTheBreakerOpensMidCall() async throws {
        let receipt = try RemoteTestData.fixture("valid-sha1.receipt")
        let standIn = try RemoteTestData.standIn()
        standIn.setDefault(.production, .status(21005))
        try await standIn.withRunning { addresses in
            let client = try RemoteTestData.client(
                RemoteTestData.configuration(addresses, maximumAttempts: 10, failureThreshold: 2))
            let error = await #expect(throws: RemoteError.self) {
                try await client.verify(VerifyReceiptRequest(receiptBytes: receipt))
            }
            #expect(error?.code == .circuitOpen)
            #expect(standIn.callCount(.production) == 2)
        }
    }

    @Test func onlyOneProbeAtATime() {
        let clock = ManualClock()
        let breaker = CircuitBreaker(configuration: .init(failureThreshold: 1, coolDown: .seconds(5)), clock: clock)
        #expect(breaker.acquire() == .normal)
        breaker.recordFailure()
        #expect(breaker.acquire() == nil)
        clock.advance(by: .seconds(5))
        #expect(breaker.acquire() == .probe)
        #expect(breaker.acquire() == nil, "a second caller waits while the probe is in flight")
        breaker.recordNeutral(.probe)
        #expect(breaker.acquire() == .probe, "a cancelled probe frees the slot")
        breaker.recordSuccess()
        #expect(breaker.currentState == .closed)
        #expect(breaker.acquire() == .normal)
    }
}
