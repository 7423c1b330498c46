import AppleStandIn
import Foundation
import ReceiptForge
import ReceiptModel
import ReceiptRemote
import ReceiptVerification
import TestSupport
import Testing

/// Apple's answer counts only when it describes the receipt that was sent (issue 10, class 2): the same
/// kind, the same bundle id on both sides, for app receipts the same in-app transaction ids, for iOS 6
/// receipts the same transaction id; and what is sent is exactly the bytes verified. An endpoint that
/// answers status 0 to anything must never make a receipt `valid, decided remote`.
@Suite(.timeLimit(.minutes(1)))
struct ReceiptBindingTests {
    static let pki = TestPKI(directory: SharedTestData.packageRoot.appendingPathComponent("certs"))

    /// `fixtures/descriptions/valid-sha256.json` minted again with only the leaf embedded: the signature
    /// verifies, the chain stops at the missing intermediate, so the receipt is locally inconclusive
    /// (`chain.incomplete`) and goes to Apple. `change` edits the payload first.
    static func leafOnlyReceipt(_ change: (inout ReceiptDescription) -> Void = { _ in }) throws -> [UInt8] {
        let file = RemoteTestData.fixtures.appendingPathComponent("descriptions/valid-sha256.json")
        var request = try MintRequest(json: Data(contentsOf: file))
        var receipt = try #require(request.receipt)
        change(&receipt)
        request.receipt = receipt
        request.signing.certificates = ["test-leaf"]
        return try request.mint(pki: pki)
    }

    /// The transaction ids of `valid-sha256`'s four purchases.
    static let transactionIDs = ["2000000100000001", "2000000100000002", "2000000100000003", "2000000100000004"]

    func fallback(_ addresses: StandInAddresses) throws -> FallbackVerifier {
        FallbackVerifier(
            verifier: try RemoteTestData.verifier(),
            remote: try RemoteTestData.client(RemoteTestData.configuration(addresses, maximumAttempts: 1)))
    }

    /// The local verdict stands, decided locally, with `remote.receipt_mismatch` first and "try again".
    func expectMismatch(_ result: AttributedVerdict, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(result.verdict.outcome == .inconclusive, sourceLocation: sourceLocation)
        #expect(result.decidedBy == .local, sourceLocation: sourceLocation)
        #expect(VerifyReceiptStatus.status(of: result) == 21005, sourceLocation: sourceLocation)
        #expect(
            result.verdict.reason?.code == .remoteReceiptMismatch, "\(result.verdict.reasons)",
            sourceLocation: sourceLocation)
        #expect(result.appleResponse?.status == 0, sourceLocation: sourceLocation)
    }

    @Test func theLeafOnlyReceiptIsInconclusiveAndAFaithfulAnswerMakesItValid() async throws {
        let receipt = try Self.leafOnlyReceipt()
        let standIn = try RemoteTestData.standIn()
        let result = try await standIn.withRunning { addresses in try await fallback(addresses).verify(receipt) }
        #expect(result.localVerdict.reason?.code == .chainIncomplete)
        #expect(result.verdict.outcome == .valid)
        #expect(result.decidedBy == .remote)
    }

    /// The stand-in echoes whatever it decodes with status 0, as an endpoint that vouches for anything
    /// would: a receipt without a bundle id can then not be tied to the answer.
    @Test func aReceiptWithoutBundleIDIsNeverMadeValidByAnEcho() async throws {
        let receipt = try Self.leafOnlyReceipt { $0.bundleID = nil }
        let standIn = try RemoteTestData.standIn()
        let result = try await standIn.withRunning { addresses in try await fallback(addresses).verify(receipt) }
        #expect(standIn.callCount(.sandbox) == 1)
        expectMismatch(result)
    }

    static func appAnswer(bundleID: String? = "org.example.receiptforge.sample", inApp: String?) -> StandInBehaviour {
        var receipt: [String] = []
        if let bundleID { receipt.append("\"bundle_id\":\"\(bundleID)\"") }
        if let inApp { receipt.append("\"in_app\":\(inApp)") }
        return .body(#"{"status":0,"environment":"Sandbox","receipt":{"# + receipt.joined(separator: ",") + "}}")
    }

    static func inApp(_ ids: [String?]) -> String {
        "["
            + ids.map { id in id.map { "{\"transaction_id\":\"\($0)\"}" } ?? "{\"product_id\":\"x\"}" }
            .joined(separator: ",") + "]"
    }

    @Test(arguments: [
        appAnswer(inApp: inApp(["1000000000000001"])),  // another receipt's purchase
        appAnswer(inApp: inApp(Array(transactionIDs.dropLast()))),  // one purchase missing
        appAnswer(inApp: inApp(transactionIDs + ["2000000100000099"])),  // one purchase more
        appAnswer(inApp: inApp(transactionIDs.dropLast() + [nil])),  // an entry without a transaction id
        appAnswer(inApp: "[]"), appAnswer(inApp: nil),  // none at all
        appAnswer(bundleID: nil, inApp: inApp(transactionIDs)),  // no bundle id in the answer
        appAnswer(bundleID: "com.other.app", inApp: inApp(transactionIDs)),
        .body(#"{"status":0,"receipt":{"bid":"org.example.receiptforge.sample","transaction_id":"2000000100000001"}}"#),
    ])
    func anAnswerAboutAnotherAppReceiptIsNeverValid(_ answer: StandInBehaviour) async throws {
        let receipt = try Self.leafOnlyReceipt()
        let standIn = try RemoteTestData.standIn()
        standIn.setDefault(.production, answer)
        let result = try await standIn.withRunning { addresses in try await fallback(addresses).verify(receipt) }
        expectMismatch(result)
    }

    @Test func theSameTransactionsInAnotherOrderAreTheSameReceipt() async throws {
        let receipt = try Self.leafOnlyReceipt()
        let standIn = try RemoteTestData.standIn()
        standIn.setDefault(.production, Self.appAnswer(inApp: Self.inApp(Self.transactionIDs.reversed())))
        let result = try await standIn.withRunning { addresses in try await fallback(addresses).verify(receipt) }
        #expect(result.verdict.outcome == .valid)
        #expect(result.decidedBy == .remote)
    }

    /// A subscription refresh of a locally valid receipt is held to the same rule; the local `valid` stands.
    @Test func aRefreshAnsweredForAnotherReceiptKeepsTheLocalVerdict() async throws {
        let receipt = try RemoteTestData.fixture("valid-sha256.receipt")
        let now = try #require(ReceiptDate(rfc3339: "2026-01-15T00:00:00Z"))
        let standIn = try RemoteTestData.standIn()
        standIn.setDefault(.production, Self.appAnswer(inApp: Self.inApp(["1000000000000001"])))
        let result = try await standIn.withRunning { addresses in
            try await fallback(addresses).verify(
                receipt, request: FallbackRequest(password: "secret", subscriptionStateAt: now))
        }
        #expect(result.verdict.outcome == .valid)
        #expect(result.decidedBy == .local)
        #expect(VerifyReceiptStatus.status(of: result) == 0)
        #expect(result.verdict.reason?.code == .remoteReceiptMismatch)
    }

    @Test(arguments: [
        #"{"status":0,"receipt":{"bid":"org.example.receiptforge.ios6","transaction_id":"1000000800999999"}}"#,
        #"{"status":0,"receipt":{"bid":"org.example.receiptforge.ios6"}}"#,
        #"{"status":0,"environment":"Sandbox","receipt":{"bundle_id":"org.example.receiptforge.ios6","in_app":[]}}"#,
    ])
    func anAnswerAboutAnotherIOS6TransactionIsNeverValid(_ answer: String) async throws {
        let standIn = try RemoteTestData.standIn()
        standIn.setDefault(.production, .body(answer))
        let result = try await standIn.withRunning { addresses in
            try await fallback(addresses).verify(try RemoteTestData.fixture("ios6-valid.b64"))
        }
        expectMismatch(result)
    }

    /// Whatever wrapping the client's bytes came in, Apple is sent base64 of exactly the bytes the local
    /// verifier decoded: the decoded plist text for base64 forms; for raw text forms the plist text without
    /// the quotes, byte-order mark, vertical tab or white space around it (inside quotes it is kept).
    @Test func exactlyTheBytesVerifiedAreForwarded() async throws {
        let base64 = try RemoteTestData.fixture("ios6-valid.b64")
        let plist = try #require(Base64.decode(base64))
        let text = Array(plist.reversed().drop { $0 == 0x0A }.reversed())  // the plist ends with a line feed
        let forms: [(sent: [UInt8], verified: [UInt8])] = [
            (base64, plist), (Array(" \"".utf8) + base64 + Array("\"\n".utf8), plist),
            ([0xEF, 0xBB, 0xBF] + base64, plist), (Array("data:text/plain;base64,".utf8) + base64, plist),
            (Array("\"".utf8) + plist + Array("\"".utf8), plist), ([0x0B] + plist, text),
            (plist + [0x0B, 0x0C], text), ([0xEF, 0xBB, 0xBF] + plist, text),
        ]
        let standIn = try RemoteTestData.standIn()
        try await standIn.withRunning { addresses in
            let fallback = try fallback(addresses)
            for form in forms {
                let before = standIn.requests().count
                let result = await fallback.verify(form.sent)
                #expect(result.localVerdict.reason?.code == .ios6ChainIncomplete, "\(form.sent.prefix(4))")
                #expect(result.verdict.outcome == .valid, "\(form.sent.prefix(4))")
                let sent = standIn.requests().dropFirst(before).map(\.receiptData)
                #expect(sent.count == 2)  // production, then sandbox after 21007
                #expect(sent.allSatisfy { $0 == Base64.encode(form.verified) }, "\(form.sent.prefix(4))")
            }
        }
    }

    /// The app-receipt counterpart: DER, BER-in-base64 and URL-safe base64 are all sent as the standard
    /// base64 of the bytes decoded.
    @Test func anAppReceiptIsForwardedAsTheBytesDecoded() async throws {
        let der = try Self.leafOnlyReceipt()
        let base64 = Base64.encode(der)
        let urlSafe = base64.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        let standIn = try RemoteTestData.standIn()
        try await standIn.withRunning { addresses in
            let fallback = try fallback(addresses)
            for form in [der, Array(urlSafe.utf8), Array("\"\(base64)\"".utf8)] {
                #expect(await fallback.verify(form).verdict.outcome == .valid)
            }
        }
        #expect(standIn.requests().allSatisfy { $0.receiptData == base64 })
    }
}
