import Foundation
import ReceiptModel
import ReceiptVerification
import Synchronization
import Testing

/// The verdict carries what it judged: the receipt a `valid` verdict vouches for, whatever decoded for the
/// others, and the decoder's error for bytes that are no receipt; every form of input gives the same verdict.
@Suite(.timeLimit(.minutes(1)))
struct VerdictTests {
    @Test func aValidVerdictCarriesTheReceiptItVouchesFor() throws {
        let fixture = try VerificationTestData.fixture("valid-sha256")
        let verdict = try VerificationTestData.fixtureVerifier().verify(fixture.bytes)
        #expect(verdict.outcome == .valid)
        guard case .appReceipt(let receipt)? = verdict.verifiedReceipt else {
            Issue.record("a valid verdict without its app receipt: \(verdict)")
            return
        }
        let decoded = try AppReceipt(berEncoded: fixture.bytes)
        #expect(receipt.payload.bundleID == decoded.payload.bundleID)
        #expect(
            receipt.payload.inAppPurchases.map(\.transactionID) == decoded.payload.inAppPurchases.map(\.transactionID))
        #expect(verdict.decodingError == nil)
    }

    @Test func anInvalidVerdictVouchesForNothingButKeepsWhatDecoded() throws {
        let verdict = try VerificationTestData.fixtureVerifier().verify(
            VerificationTestData.fixture("tampered-payload").bytes)
        #expect(verdict.outcome == .invalid)
        #expect(verdict.verifiedReceipt == nil)
        guard case .appReceipt? = verdict.receipt else {
            Issue.record("the tampered receipt decodes; the verdict should keep it: \(verdict)")
            return
        }
    }

    @Test func bytesThatAreNoReceiptCarryTheDecodersError() throws {
        let verdict = try VerificationTestData.fixtureVerifier().verify("this is not base64 at all!")
        #expect(verdict.outcome == .invalid)
        #expect(verdict.reason?.code == .receiptMalformed)
        #expect(verdict.receipt == nil)
        #expect(verdict.decodingError?.code == .invalidBase64)
    }

    @Test(arguments: ["valid-sha256", "valid-base64", "expired-leaf", "ios6-valid"])
    func everyFormOfInputGivesTheSameVerdict(_ name: String) throws {
        let verifier = try VerificationTestData.fixtureVerifier()
        let bytes = try VerificationTestData.fixture(name).bytes
        // Text as a client sends it: the fixture itself when it is base64 text, else base64 of its DER.
        let isText = bytes.allSatisfy { $0 < 0x80 }
        let text = isText ? String(decoding: bytes, as: UTF8.self) : Base64.encode(bytes)
        let verdicts = [
            verifier.verify(bytes), verifier.verify(bytes[...]), verifier.verify(Data(bytes)), verifier.verify(text),
        ]
        for verdict in verdicts.dropFirst() {
            #expect(verdict.outcome == verdicts[0].outcome, "\(name)")
            #expect(verdict.reasons.map(\.code) == verdicts[0].reasons.map(\.code), "\(name)")
            #expect(verdict.chain == verdicts[0].chain, "\(name)")
        }
    }

    @Test func nowComesFromTheCallOrTheConfiguredClockAndOnlyWhenAskedFor() throws {
        let bytes = try VerificationTestData.fixture("valid-sha256").bytes
        let clockInstant = ReceiptDate(clampingMillisecondsSince1970: 1_750_000_000_000)
        let reads = Mutex(0)
        let verifier = ReceiptVerifier(
            configuration: .init(
                trustAnchors: try VerificationTestData.testPKIAnchors(),
                clock: {
                    reads.withLock { $0 += 1 }
                    return clockInstant
                }))
        _ = verifier.verify(bytes)
        _ = verifier.verify(bytes, validationTime: .fixed(clockInstant))
        #expect(reads.withLock { $0 } == 0, "the clock is read only for .now")
        let given = ReceiptDate(clampingMillisecondsSince1970: 1_751_000_000_000)
        #expect(verifier.verify(bytes, validationTime: .now, now: given).validationInstant == given)
        #expect(reads.withLock { $0 } == 0)
        let clocked = verifier.verify(bytes, validationTime: .now)
        #expect(clocked.validationInstant == clockInstant)
        #expect(clocked.validationTime == .now)
        #expect(reads.withLock { $0 } == 1)
    }
}
