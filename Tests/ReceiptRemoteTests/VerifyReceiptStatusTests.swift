import ReceiptModel
import ReceiptRemote
import ReceiptVerification
import Testing

/// The one function that turns a verdict into verifyReceipt's `status`: every row of its table, built from
/// verdicts and answers directly (no network), so a change to any row fails here.
@Suite struct VerifyReceiptStatusTests {
    static func verdict(
        _ outcome: Verdict.Outcome, _ codes: [Reason.Code] = [], environment: ReceiptEnvironment? = .sandbox
    ) -> Verdict {
        Verdict(
            outcome: outcome, reasons: codes.map { Reason($0, "test") }, receipt: nil, environment: environment,
            validationTime: .receiptCreation, validationInstant: nil, chain: [])
    }

    static func answer(_ status: Int) throws -> VerifyReceiptResponse {
        try VerifyReceiptResponse(body: Array(#"{"status":\#(status)}"#.utf8))
    }

    static func asked(
        _ local: Verdict, _ combined: Verdict, by decidedBy: DecidedBy, apple: VerifyReceiptResponse?,
        error: RemoteError? = nil
    ) -> AttributedVerdict {
        AttributedVerdict(
            verdict: combined, decidedBy: decidedBy, localVerdict: local,
            trigger: .localInconclusive(.ios6ChainIncomplete), appleResponse: apple, remoteError: error)
    }

    @Test func localVerdicts() {
        #expect(VerifyReceiptStatus.status(of: .local(Self.verdict(.valid))) == 0)
        #expect(VerifyReceiptStatus.status(of: .local(Self.verdict(.invalid, [.receiptMalformed]))) == 21002)
        #expect(VerifyReceiptStatus.status(of: .local(Self.verdict(.invalid, [.signatureMismatch]))) == 21003)
        #expect(VerifyReceiptStatus.status(of: .local(Self.verdict(.inconclusive, [.chainIncomplete]))) == 21003)
        // Not asked (remote off): inconclusive stays 21003, never 21005.
        let notAsked = AttributedVerdict.local(
            Self.verdict(.inconclusive, [.ios6ChainIncomplete]), trigger: .localInconclusive(.ios6ChainIncomplete))
        #expect(VerifyReceiptStatus.status(of: notAsked) == 21003)
    }

    @Test func appleAskedButNotDeciding() throws {
        let local = Self.verdict(.inconclusive, [.ios6ChainIncomplete])
        let unreachable = Self.asked(
            local, local, by: .local, apple: nil, error: RemoteError(.unavailable, "down"))
        #expect(VerifyReceiptStatus.status(of: unreachable) == 21005)
        #expect(
            VerifyReceiptStatus.status(of: Self.asked(local, local, by: .local, apple: try Self.answer(21004))) == 21004
        )
        #expect(
            VerifyReceiptStatus.status(of: Self.asked(local, local, by: .local, apple: try Self.answer(21000))) == 21005
        )
        #expect(
            VerifyReceiptStatus.status(of: Self.asked(local, local, by: .local, apple: try Self.answer(0))) == 21005)
        // A refresh of a locally valid receipt that Apple did not confirm keeps the local 0.
        let valid = Self.verdict(.valid)
        #expect(
            VerifyReceiptStatus.status(of: Self.asked(valid, valid, by: .local, apple: try Self.answer(21003))) == 0)
    }

    @Test func appleDeciding() throws {
        let local = Self.verdict(.inconclusive, [.ios6ChainIncomplete])
        #expect(
            VerifyReceiptStatus.status(
                of: Self.asked(local, Self.verdict(.valid), by: .remote, apple: try Self.answer(0))) == 0)
        #expect(
            VerifyReceiptStatus.status(
                of: Self.asked(local, Self.verdict(.valid), by: .remote, apple: try Self.answer(21006))) == 21006)
        let rejected = Self.verdict(.invalid, [.remoteRejected])
        #expect(
            VerifyReceiptStatus.status(of: Self.asked(local, rejected, by: .remote, apple: try Self.answer(21010)))
                == 21010)
        #expect(
            VerifyReceiptStatus.status(of: Self.asked(local, rejected, by: .remote, apple: try Self.answer(21003)))
                == 21003)
        // Apple vouched, the operator's policy refused: 21003, not Apple's 0.
        let refused = Self.verdict(.invalid, [.policyBundleIDRejected])
        #expect(
            VerifyReceiptStatus.status(of: Self.asked(local, refused, by: .remote, apple: try Self.answer(0))) == 21003)
    }

    @Test(arguments: [
        (ReceiptEnvironment.production, ReceiptEnvironment?.some(.production), false, 0),
        (.production, .sandbox, false, 21007), (.production, .xcode, false, 21007),
        (.sandbox, .production, false, 21008), (.sandbox, .sandbox, false, 0), (.sandbox, .xcode, false, 0),
        (.production, .sandbox, true, 0), (.sandbox, .production, true, 0),
        (.production, nil, false, 21003), (.sandbox, nil, true, 21003),
    ])
    func endpointEnvironment(
        _ endpoint: ReceiptEnvironment, _ environment: ReceiptEnvironment?, _ any: Bool, _ status: Int
    )
        throws
    {
        let result = Self.valid(try Self.decoded("valid-sha256.receipt"), environment: environment)
        #expect(VerifyReceiptStatus.status(of: result, endpoint: endpoint, acceptsAnyEnvironment: any) == status)
        // Without an endpoint the environment plays no part.
        #expect(VerifyReceiptStatus.status(of: result) == 0)
    }

    @Test func anEndpointNeverTurnsARefusalIntoSomethingElse() {
        let result = AttributedVerdict.local(Self.verdict(.invalid, [.chainExpired], environment: .sandbox))
        #expect(VerifyReceiptStatus.status(of: result, endpoint: .production) == 21003)
    }

    static func decoded(_ name: String) throws -> ReceiptInput {
        try ReceiptInput(bytes: RemoteTestData.fixture(name)[...])
    }

    static func valid(_ receipt: ReceiptInput, environment: ReceiptEnvironment?) -> AttributedVerdict {
        .local(
            Verdict(
                outcome: .valid, reasons: [], receipt: receipt, environment: environment,
                validationTime: .receiptCreation, validationInstant: nil, chain: []))
    }

    @Test func theEndpointsVouchLocallyOnlyForAnAppReceipt() throws {
        let ios6 = Self.valid(try Self.decoded("ios6-valid.b64"), environment: .sandbox)
        #expect(VerifyReceiptStatus.status(of: ios6) == 0)
        #expect(VerifyReceiptStatus.status(of: ios6, endpoint: .sandbox) == 21003)
        #expect(VerifyReceiptStatus.status(of: ios6, endpoint: .sandbox, acceptsAnyEnvironment: true) == 21003)
        let app = Self.valid(try Self.decoded("valid-sha256.receipt"), environment: .sandbox)
        #expect(VerifyReceiptStatus.status(of: app, endpoint: .sandbox) == 0)
    }

    @Test func theBodyIsTheReceiptAppleOrTheStatusAlone() throws {
        let app = Self.valid(try Self.decoded("valid-sha256.receipt"), environment: .sandbox)
        guard case .receipt(_, .sandbox) = VerifyReceiptStatus.body(of: app, status: 0) else {
            Issue.record("a local status 0 renders the receipt")
            return
        }
        guard case .statusOnly = VerifyReceiptStatus.body(of: app, status: 21007) else {
            Issue.record("the environment rule's 21007 is a status alone")
            return
        }
        let local = Self.verdict(.inconclusive, [.ios6ChainIncomplete])
        let apple = try Self.answer(21006)
        let decided = Self.asked(local, Self.verdict(.valid), by: .remote, apple: apple)
        guard case .apple(let body) = VerifyReceiptStatus.body(of: decided, status: 21006) else {
            Issue.record("Apple's deciding answer passes through")
            return
        }
        #expect(body == apple.body)
        let unreachable = Self.asked(local, local, by: .local, apple: nil, error: RemoteError(.timeout, "slow"))
        guard case .statusOnly = VerifyReceiptStatus.body(of: unreachable, status: 21005) else {
            Issue.record("21005 is a status alone")
            return
        }
    }
}
