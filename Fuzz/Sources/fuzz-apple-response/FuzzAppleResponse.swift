import FuzzSupport
import ReceiptModel
import ReceiptRemote

// fuzz-apple-response: Apple's verifyReceipt answer as the remote fallback reads it (an endpoint that is
// faulty, intercepted or impersonated controls every byte). `VerifyReceiptResponse(body:)`, then every typed
// accessor: `inApp`, `newestExpiry`, `bundleID`, `effectiveEnvironment`, each `TransactionInfo` field
// (dates rendered as text), `pending_renewal_info`, and the unknown members.
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
