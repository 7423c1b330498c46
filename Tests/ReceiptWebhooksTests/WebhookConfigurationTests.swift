import ReceiptWebhooks
import Testing

@Suite struct WebhookConfigurationTests {
    @Test(arguments: [
        "ftp://example.com/hooks", "https://", "http:///hooks", "example.com/hooks", "https://exa mple.com/",
        "https://user@/hooks", "",
    ])
    func refusesWhatIsNotAnHTTPURLWithAHost(url: String) {
        #expect(throws: WebhookError(.invalidURL, "")) { try WebhookConfiguration(url: url, secrets: ["s"]) }
    }

    /// Plain http is accepted to any host: receivers inside the operator's network.
    @Test(arguments: [
        "http://10.0.0.5:8080/hooks", "https://backend.example/receipts?token=abc", "HTTP://127.0.0.1/",
        "http://[::1]:9000/hooks",
    ])
    func acceptsHTTPAndHTTPS(url: String) throws {
        let configuration = try WebhookConfiguration(url: url, secrets: ["s"]).validated()
        #expect(configuration.lease <= WebhookConfiguration.longestLease)
    }

    @Test func refusesASecretlessConfiguration() {
        #expect(throws: WebhookError(.invalidSecret, "")) {
            try WebhookConfiguration(url: "https://backend.example/hooks", secrets: [])
        }
    }

    @Test(arguments: [Duration.zero, .seconds(26), .seconds(-1)])
    func refusesATimeoutThatWouldStretchTheLease(timeout: Duration) throws {
        let configuration = try WebhookConfiguration(
            url: "https://backend.example/hooks", secrets: ["s"], timeout: timeout)
        #expect(throws: WebhookError(.invalidSetting, "")) { try configuration.validated() }
    }

    @Test func theDefaultsMatchTheFlags() throws {
        let configuration = try WebhookConfiguration(url: "https://backend.example/hooks", secrets: ["s"])
        #expect(configuration.timeout == .seconds(10))
        #expect(configuration.maxAge == .seconds(86_400))
        #expect(configuration.backoff == WebhookBackoff(initial: .seconds(1), maximum: .seconds(3600)))
        #expect(configuration.lease == .seconds(15))
    }

    @Test func itsDescriptionShowsNeitherSecretsNorPathNorQuery() throws {
        let configuration = try WebhookConfiguration(
            url: "https://hooks.example:8443/receipts?token=tok_private", secrets: ["whsec_private"])
        let text = "\(configuration)"
        #expect(text.contains("https://hooks.example:8443"))
        #expect(!text.contains("whsec_private"))
        #expect(!text.contains("tok_private"))
    }
}
