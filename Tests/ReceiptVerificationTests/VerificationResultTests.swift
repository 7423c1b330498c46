import ReceiptModel
import ReceiptVerification
import Testing

/// One outcome rule for every subject, one way to add a reason and re-decide, one way for another judge to decide.
@Suite struct VerificationResultTests {
    static func receiptVerdict(_ reasons: [Reason]) -> Verdict {
        Verdict(
            judging: reasons, subject: ReceiptSubject(receipt: nil), environment: .sandbox,
            validationTime: .receiptCreation, validationInstant: nil, chain: ["leaf"])
    }

    static func jwsVerdict(_ reasons: [Reason]) -> JWSVerdict {
        JWSVerdict(
            judging: reasons, subject: JWSSubject(jws: nil, payload: nil), environment: .production,
            validationTime: .receiptCreation, validationInstant: nil, chain: [])
    }

    static let undecided = Reason(.chainIncomplete, "the intermediate is missing")
    static let deciding = Reason(.signatureMismatch, "the signature does not verify")

    @Test func theRuleIsTheSameForReceiptsAndJWS() {
        for reasons in [[], [Self.undecided], [Self.deciding], [Self.undecided, Self.deciding]] {
            #expect(Self.receiptVerdict(reasons).outcome == Self.jwsVerdict(reasons).outcome)
        }
        #expect(Self.receiptVerdict([]).outcome == .valid)
        #expect(Self.receiptVerdict([Self.undecided]).outcome == .inconclusive)
        #expect(Self.receiptVerdict([Self.undecided, Self.deciding]).outcome == .invalid)
        #expect(Self.receiptVerdict([Self.undecided, Self.deciding]).reason == Self.deciding, "the decider first")
    }

    @Test func addingAReasonReDecidesAndKeepsTheFacts() {
        let valid = Self.jwsVerdict([])
        let refused = valid.adding(Reason(.policyBundleIDRejected, "another app"))
        #expect(refused.outcome == .invalid)
        #expect(refused.reason?.code == .policyBundleIDRejected)
        #expect(refused.environment == .production && refused.validationTime == valid.validationTime)
        // A reason that leaves the outcome open does not decide an open verdict; the decider stays first.
        let open = Self.receiptVerdict([Self.undecided]).adding(Reason(.internalError, "OpenSSL failed"))
        #expect(open.outcome == .inconclusive)
        let decided = Self.receiptVerdict([Self.undecided]).adding(Self.deciding)
        #expect(decided.outcome == .invalid && decided.reasons == [Self.deciding, Self.undecided])
        #expect(decided.chain == ["leaf"])
    }

    @Test func anotherJudgeDecidesWithoutTheRule() {
        let open = Self.receiptVerdict([Self.undecided])
        let apple = open.deciding(.valid, reasons: [], environment: .production)
        #expect(apple.outcome == .valid && apple.environment == .production && apple.chain == ["leaf"])
    }
}
