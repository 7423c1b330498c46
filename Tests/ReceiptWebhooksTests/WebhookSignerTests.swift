import ReceiptModel
import ReceiptWebhooks
import Testing

@Suite struct WebhookSignerTests {
    static let body = Array(#"{"type":"purchase.new","id":"evt_0123"}"#.utf8)
    static let time = ReceiptDate(clampingMillisecondsSince1970: 1_795_000_000_999)

    @Test(.enabled(if: IndependentHMAC.available))
    func signatureMatchesAnIndependentHMAC() throws {
        let header = try WebhookSigner(secrets: ["whsec_test_one"]).signature(body: Self.body, at: Self.time)
        let parsed = try #require(IndependentHMAC.parse(header))
        // Whole seconds, floored.
        #expect(parsed.t == "1795000000")
        #expect(parsed.v1.count == 1)
        let expected = try IndependentHMAC.hex(
            secret: "whsec_test_one", message: Array("1795000000.".utf8) + Self.body)
        #expect(parsed.v1 == [expected])
    }

    @Test(.enabled(if: IndependentHMAC.available))
    func rotationSignsWithBothSecretsInOrder() throws {
        let secrets = ["whsec_old", "whsec_new"]
        let header = try WebhookSigner(secrets: secrets).signature(body: Self.body, at: Self.time)
        let parsed = try #require(IndependentHMAC.parse(header))
        #expect(parsed.v1.count == 2)
        #expect(parsed.v1[0] != parsed.v1[1])
        #expect(try IndependentHMAC.verifies(header, body: Self.body, secrets: secrets))
        // The other order is not what was signed: each v1 belongs to its secret.
        #expect(try !IndependentHMAC.verifies(header, body: Self.body, secrets: secrets.reversed()))
    }

    @Test func aLaterAttemptIsSignedAfresh() throws {
        let signer = try WebhookSigner(secrets: ["whsec_test_one"])
        let first = try signer.signature(body: Self.body, at: Self.time)
        let later = try signer.signature(
            body: Self.body, at: ReceiptDate(clampingMillisecondsSince1970: Self.time.millisecondsSince1970 + 5000))
        #expect(first != later)
        #expect(IndependentHMAC.parse(later)?.t == "1795000005")
    }

    @Test(arguments: [[String](), [""], ["whsec_ok", ""]])
    func refusesMissingOrEmptySecrets(secrets: [String]) {
        #expect(throws: WebhookError(.invalidSecret, "")) { try WebhookSigner(secrets: secrets) }
    }

    @Test func itsDescriptionNeverShowsASecret() throws {
        let signer = try WebhookSigner(secrets: ["whsec_very_secret", "whsec_other"])
        #expect(!"\(signer)".contains("whsec"))
    }
}
