public import Logging
public import ReceiptModel
public import ReceiptRemote
public import ReceiptVerification

/// Local first, Apple only when needed: a ``ReceiptDecider`` over `ReceiptRemote`'s `FallbackVerifier`.
///
/// Apple is asked only when the fallback's decision table says so: a locally inconclusive receipt (an
/// iOS 6 receipt, an unsupported algorithm), or, when the client sent a shared secret, a valid receipt
/// whose newest subscription expiry is before "now" (renewals only Apple knows). Valid and invalid
/// local verdicts are final otherwise. When Apple decides, its body is passed through unchanged.
public struct FallbackDecider: ReceiptDecider {
    /// The combined local/remote verifier.
    public let fallback: FallbackVerifier

    public init(fallback: FallbackVerifier) {
        self.fallback = fallback
    }

    public var cacheStatistics: ChainCacheStatistics { fallback.verifier.cacheStatistics }

    public func decide(_ request: DecisionRequest) async -> Decision {
        guard request.allowsRemote, fallback.remote != nil else {
            return LocalDecider.decideLocally(request, verifier: fallback.verifier)
        }
        let result = await fallback.verify(
            request.receiptData,
            request: FallbackRequest(
                password: request.password, excludeOldTransactions: request.excludeOldTransactions ? true : nil,
                subscriptionStateAt: request.subscriptionStateAt, validationTime: request.validationTime,
                startEnvironment: request.endpoint == .sandbox ? .sandbox : .production))

        let input: Result<ReceiptInput, ReceiptError>
        if let decoded = result.decoded {
            input = .success(decoded)
        } else {
            // The fallback keeps only the verdict for undecodable bytes; decoding again (it fails fast)
            // recovers the decoder's error code, which `/v1/verify` turns into HTTP 400 for bad base64.
            input = Result { () throws(ReceiptError) in try ReceiptInput(bytes: request.receiptData) }
        }
        var remote: RemoteAnswer?
        if result.decidedBy == .remote, let response = result.remoteResponse {
            remote = RemoteAnswer(status: response.status, environment: response.effectiveEnvironment, body: response.body)
        }
        let remoteCall = result.remoteResponse.map { String($0.status) } ?? result.remoteError.map { $0.code.description }
        return Decision(
            verdict: result.localVerdict, input: input, outcome: result.outcome, remote: remote, status: result.status,
            reasons: result.reasons.map { DecisionReason(code: $0.code.description, message: $0.message) },
            remoteCall: remoteCall)
    }
}

extension FallbackDecider {
    /// A fallback to Apple's verifyReceipt (or a stand-in at other URLs) over `HTTPClient.shared`.
    /// - Parameters:
    ///   - productionURL: Apple's production endpoint by default.
    ///   - sandboxURL: Apple's sandbox endpoint by default.
    ///   - deadline: the longest one remote verification may take, retries and the 21007 hop included.
    /// - Throws: ``ServerError`` ``ServerError/Code/invalidConfiguration`` when a URL is not absolute http(s).
    public static func apple(
        verifier: ReceiptVerifier, productionURL: String? = nil, sandboxURL: String? = nil,
        deadline: Duration = .seconds(30), logger: Logger
    ) throws(ServerError) -> FallbackDecider {
        let configuration = VerifyReceiptClient.Configuration(
            productionURL: productionURL ?? VerifyReceiptClient.Configuration.appleProductionURL,
            sandboxURL: sandboxURL ?? VerifyReceiptClient.Configuration.appleSandboxURL, deadline: deadline)
        do {
            let client = try VerifyReceiptClient(configuration: configuration, logger: logger)
            return FallbackDecider(fallback: FallbackVerifier(verifier: verifier, remote: client, logger: logger))
        } catch {
            throw ServerError(.invalidConfiguration, "remote fallback: \(error.reason)")
        }
    }

    /// The production and sandbox URLs asked, for the startup log.
    public var remoteURLs: (production: String, sandbox: String)? {
        fallback.remote.map { ($0.configuration.productionURL, $0.configuration.sandboxURL) }
    }
}
