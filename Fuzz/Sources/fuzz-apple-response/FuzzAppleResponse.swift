import FuzzSupport
import ReceiptModel
@_spi(Fuzzing) import ReceiptRemote

// fuzz-apple-response: Apple's verifyReceipt answer as the remote fallback reads it (an endpoint that is
// faulty, intercepted or impersonated controls every byte). `VerifyReceiptResponse(body:)`, then every typed
// accessor: `inApp`, `newestExpiry`, `bundleID`, `effectiveEnvironment`, each `TransactionInfo` field
// (dates rendered as text), `pending_renewal_info`, and the unknown members.
//
// The same bytes as an App Store Server API answer (`AppStoreAPIResponse`: a 200's object, a 404's `errorCode`, the
// bytes as a 429's `Retry-After`) and the signed-item lists a page holds (`signedTransactions`,
// `notificationHistory[].signedPayload`), as the Server API client reads them.
//
// Checked besides "does not trap": `body` is the bytes received; `receiptJSON` (the bytes of `receipt` passed
// through) parses to the same object; the object written back (`jsonBytes`) parses to the same object too.

@_cdecl("LLVMFuzzerTestOneInput")
public func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = LibFuzzer.bytes(data, size)
    FuzzAppleResponse.run(bytes)
    return 0
}

@_cdecl("fuzz_apple_response_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    LibFuzzer.run(argc: argc, argv: argv, testOneInput: testOneInput)
}

enum FuzzAppleResponse {
    static func run(_ bytes: [UInt8]) {
        serverAPI(bytes)
        let response: VerifyReceiptResponse
        do {
            response = try VerifyReceiptResponse(body: bytes)
        } catch {
            Sink.consume(error.code)
            return
        }
        Sink.consume(response.status)
        Sink.consume(response.environment)
        Sink.consume(response.effectiveEnvironment)
        Sink.consume(response.isRetryable)
        Sink.consume(response.shape)
        Sink.consume(response.bundleID)
        Sink.consume(response.latestReceipt?.count)
        Sink.consume(response.pendingRenewalInfo.count)
        Sink.consume(response.unknownMembers.map(\.key))
        Sink.consume(text(response.newestExpiry))
        for transaction in response.inApp + response.latestReceiptInfo { read(transaction) }
        Oracle.check(response.body == bytes, "apple response: body is not the bytes received")

        guard let receipt = response.receipt, let receiptJSON = response.receiptJSON else {
            Oracle.check(response.receiptJSON == nil, "apple response: receiptJSON without a receipt")
            return
        }
        let reparsed = reparse(receiptJSON, what: "receiptJSON")
        Oracle.check(reparsed == receipt, "apple response: receiptJSON parses to another object")
        let written = JSONValue.object(receipt).jsonBytes
        let rewritten = reparse(written, what: "the receipt written back")
        Oracle.check(rewritten == receipt, "apple response: the receipt written back parses to another object")
    }

    /// The bytes as each App Store Server API answer the client decodes.
    static func serverAPI(_ bytes: [UInt8]) {
        let header = String(decoding: bytes.prefix(32), as: UTF8.self)
        for status in [200, 404, 429] {
            do {
                let response = try AppStoreAPIResponse(status: status, body: bytes, retryAfter: header)
                Sink.consume(response.errorCode)
                Sink.consume(response.retryAfter?.millisecondsSince1970)
                Oracle.check(status == 200 || response.object == nil, "server api: an error answer kept a body")
                guard let object = response.object else { continue }
                for member in ["signedTransactions", "notificationHistory", "data"] {
                    Sink.consume(
                        Result { () throws(RemoteError) in try AppStoreServerAPIClient.signedStrings(object, member) })
                }
            } catch {
                Oracle.check(status == 200, "server api: an error answer failed to decode")
                Sink.consume(error.code)
            }
        }
    }

    static func read(_ transaction: TransactionInfo) {
        Sink.consume(transaction.productID)
        Sink.consume(transaction.transactionID)
        Sink.consume(transaction.originalTransactionID)
        Sink.consume(text(transaction.purchaseDate))
        Sink.consume(text(transaction.expiresDate))
        Sink.consume(text(transaction.cancellationDate))
        Sink.consume(transaction.isTrialPeriod)
        Sink.consume(transaction.json.members.count)
    }

    static func text(_ date: ReceiptDate?) -> String? {
        date?.description
    }

    /// Parses `{"status":0,"receipt":OBJECT}` and returns the object.
    static func reparse(_ object: [UInt8], what: String) -> JSONObject? {
        let body = Array("{\"status\":0,\"receipt\":".utf8) + object + Array("}".utf8)
        do {
            return try VerifyReceiptResponse(body: body).receipt
        } catch {
            Oracle.check(false, "apple response: \(what) does not parse: \(error.reason)")
            return nil
        }
    }
}
