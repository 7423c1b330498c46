@_spi(Fuzzing) public import ReceiptModel
import ReceiptVerification

/// Walking paged answers and verifying their signed items.
extension AppStoreServerAPIClient {
    /// Follows a paged endpoint to its end: each page's `hasMore` and cursor (`revision`, `paginationToken`) make the
    /// next request, with the same filters, in the environment that answered the first page.
    /// - Parameters:
    ///   - request: the request for a cursor (`nil` for the first page).
    ///   - cursorMember: the member holding the next page's cursor.
    ///   - page: called with each page's object and the environment that answered it.
    /// - Returns: the environment and the number of pages.
    /// - Throws: what ``send(_:bundleID:environment:)`` throws; `remote.malformed_response` for a page that is not an
    ///   object, or says `hasMore` without a new cursor; `remote.response_too_large` past
    ///   ``Configuration/maximumPages``.
    func walk(
        bundleID: String, environment: ReceiptEnvironment?, cursorMember: String,
        request: (String?) -> AppStoreAPIRequest,
        page: (JSONObject, ReceiptEnvironment) async throws(RemoteError) -> Void
    ) async throws(RemoteError) -> (environment: ReceiptEnvironment, pages: Int) {
        var cursor: String?
        var environment = environment
        var pages = 0
        var seen: Set<String> = []
        while true {
            let (response, answered) = try await send(request(cursor), bundleID: bundleID, environment: environment)
            environment = answered
            pages += 1
            guard let object = response.object else {
                throw RemoteError(.malformedResponse, "page \(pages) of \(request(cursor).name) has no JSON body")
            }
            try checkEnvelope(object, bundleID: bundleID, environment: answered)
            try await page(object, answered)
            guard object["hasMore"]?.boolValue == true else { return (answered, pages) }
            guard let next = object[cursorMember]?.stringValue, !next.isEmpty, next.utf8.count <= 4096,
                seen.insert(next).inserted
            else {
                throw RemoteError(
                    .malformedResponse, "page \(pages) says hasMore without a new \(cursorMember)")
            }
            guard pages < configuration.maximumPages else {
                throw RemoteError(
                    .responseTooLarge, "the walk goes on past \(configuration.maximumPages) pages (maximumPages)")
            }
            cursor = next
        }
    }

    /// The unsigned envelope must name the app asked about and the environment that answered, when it names them.
    /// - Throws: `remote.malformed_response`.
    func checkEnvelope(_ object: JSONObject, bundleID: String, environment: ReceiptEnvironment) throws(RemoteError) {
        if let stated = object["bundleId"], stated.stringValue != bundleID {
            throw RemoteError(.malformedResponse, "the answer names another app than \(bundleID)")
        }
        // Apple spells them `Production` and `Sandbox`, as the environment's raw value.
        if let stated = object["environment"], stated.stringValue != environment.endpoint.rawValue {
            throw RemoteError(
                .malformedResponse, "the answer names another environment than \(environment.endpoint.rawValue)")
        }
    }

    /// The strings of an array member (`signedTransactions`); absent is none.
    /// - Throws: `remote.malformed_response` when it is not an array of strings.
    @_spi(Fuzzing) public static func signedStrings(_ object: JSONObject, _ member: String) throws(RemoteError)
        -> [String]
    {
        guard let value = object[member] else { return [] }
        guard let array = value.arrayValue else {
            throw RemoteError(.malformedResponse, "\(member) is not an array")
        }
        var strings: [String] = []
        for element in array {
            guard let text = element.stringValue else {
                throw RemoteError(.malformedResponse, "\(member) holds something other than a string")
            }
            strings.append(text)
        }
        return strings
    }

    /// Verifies one signed item as `kind` and holds it to the app and environment of the answer it came in.
    func verifyItem(
        _ text: String, kind: JWSPayload.Kind, index: Int, bundleID: String, environment: ReceiptEnvironment
    ) -> SignedItem {
        let bytes = Array(text.utf8)
        let now = clock.wallTime()
        let verdict =
            kind == .notification
            ? verifier.verifyNotification(bytes[...], policy: notificationPolicy, now: now)
            : verifier.verifyJWS(bytes[...], kind: kind, now: now)
        return SignedItem(
            index: index, jws: bytes, verdict: Self.holding(verdict, to: bundleID, environment))
    }

    /// `verdict`, made invalid when its signed app or environment is not the answer's.
    static func holding(_ verdict: JWSVerdict, to bundleID: String, _ environment: ReceiptEnvironment) -> JWSVerdict {
        guard let payload = verdict.payload else { return verdict }
        var mismatches: [String] = []
        // A renewal info names no app (Apple leaves `bundleId` out of it); every other signed item names one.
        let namesNoApp: Bool
        if case .renewalInfo = payload { namesNoApp = true } else { namesNoApp = false }
        if payload.bundleID != bundleID, !(namesNoApp && payload.bundleID == nil) {
            mismatches.append("app \(payload.bundleID ?? "(none)")")
        }
        if verdict.environment != environment {
            mismatches.append("environment \(verdict.environment?.rawValue ?? "(none)")")
        }
        guard !mismatches.isEmpty else { return verdict }
        return verdict.adding(
            Reason(
                .remoteEnvelopeMismatch,
                "the signed item names \(mismatches.joined(separator: " and ")), the answer \(bundleID) in \(environment.endpoint.rawValue)"
            ))
    }
}
