import FuzzSupport
import ReceiptIntake
@_spi(Fuzzing) import ReceiptModel
@_spi(Fuzzing) import ReceiptServer

// fuzz-request-json: the body of `POST /verifyReceipt` and `POST /v1/verify` as the routes read it:
// `RequestJSON(parsing:)`, the members the routes take (`receipt-data`, `receipt_data`, `password`,
// `exclude-old-transactions`), `V1Options(json:)`, `V1Options(query:)` with the string members as query
// parameters, and the receipt data handed to `ReceiptInput` as the routes do before verifying.
//
// The body is also read as `POST /v1/sync`'s (`SyncRequest`): exactly one subject, ids and accounts within limits.
//
// The input is also read as a query string (`QueryParameters`, the query of a raw `/v1/verify` body and of
// `/v1/entitlements`).
//
// Checked besides "does not trap": the parsed members written back as JSON (`JSONWriter`) parse to the same
// members (strings that are valid UTF-8; the writer repairs invalid UTF-8 by design); a member named twice is
// never read; every query parameter, percent-encoded byte by byte, decodes once to itself.

@_cdecl("LLVMFuzzerTestOneInput")
public func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = LibFuzzer.bytes(data, size)
    FuzzRequestJSON.run(bytes)
    return 0
}

@_cdecl("fuzz_request_json_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    LibFuzzer.run(argc: argc, argv: argv, testOneInput: testOneInput)
}

enum FuzzRequestJSON {
    static func run(_ bytes: [UInt8]) {
        queryString(String(decoding: bytes, as: UTF8.self))
        syncRequest(bytes)
        let json: RequestJSON
        do {
            json = try RequestJSON(parsing: bytes)
        } catch {
            Sink.consume(error.code)
            return
        }
        for name in ["receipt-data", "receipt_data", "password"] {
            switch Result(catching: { () throws(ServerError) in try json.string(name) }) {
            case .success(let value?): decodeReceipt(value)
            case .success(nil): break
            case .failure(let error): Sink.consume(error.code)
            }
        }
        for name in ["exclude-old-transactions", "exclude_old_transactions", "allow_remote"] {
            Sink.consume(Result { () throws(ServerError) in try json.bool(name) })
        }
        Sink.consume(Result { () throws(ServerError) in try V1Options(json: json) })
        var query: [(String, String)] = []
        for (name, value) in json.members {
            if case .string(let text) = value { query.append((name, String(decoding: text, as: UTF8.self))) }
        }
        Sink.consume(Result { () throws(ServerError) in try V1Options(query: query) })
        for name in json.duplicated {
            guard case .failure = Result(catching: { () throws(ServerError) in try json.member(name) }) else {
                fatalError("a member named twice was read")
            }
        }
        checkRoundTrip(json)
    }

    static func syncRequest(_ bytes: [UInt8]) {
        do {
            let request = try SyncRequest(parsing: bytes)
            switch request.subject {
            case .receipt(let data, _): Sink.consume(data.count)
            case .transactionID(let id):
                Oracle.check(!id.isEmpty && id.utf8.count <= 64, "sync request: a transaction id outside the limits")
            }
            Sink.consume(request.bundleID)
            Sink.consume(request.account)
        } catch {
            Sink.consume(error.code)
        }
    }

    static func queryString(_ text: String) {
        let parameters: QueryParameters
        do {
            parameters = try QueryParameters(text)
        } catch {
            Sink.consume(error.code)
            return
        }
        for (name, value) in parameters.pairs {
            for text in [name, value] {
                let encoded = text.utf8.map { byte in "%" + String(byte, radix: 16, uppercase: true).leftPadded() }
                guard (try? QueryParameters("x=" + encoded.joined()))?["x"] == text else {
                    fatalError("a query parameter percent-encoded does not decode once to itself")
                }
            }
        }
    }

    static func decodeReceipt(_ data: ArraySlice<UInt8>) {
        switch Result(catching: { () throws(ReceiptError) in try ReceiptInput(bytes: data) }) {
        case .success(.appReceipt(let receipt)): Sink.consume(receipt.payload.inAppPurchases.count)
        case .success(.iOS6(let receipt)): Sink.consume(receipt.purchaseInfo.entries.count)
        case .failure(let error): Sink.consume(error.code)
        }
    }

    static func checkRoundTrip(_ json: RequestJSON) {
        var writer = JSONWriter()
        var expected: [String: RequestJSON.Value] = [:]
        writer.beginObject()
        for (name, value) in json.members {
            switch value {
            case .string(let text):
                guard String(validating: text, as: UTF8.self) != nil else { continue }
                writer.field(name, utf8: text[...])
            case .number(let text):
                writer.key(name)
                writer.raw(Array(text.utf8))
            case .bool(let flag): writer.field(name, flag)
            case .null:
                writer.key(name)
                writer.null()
            case .composite: continue
            }
            expected[name] = value
        }
        writer.endObject()
        do {
            let again = try RequestJSON(parsing: writer.bytes)
            Oracle.check(again.members == expected, "request JSON: members differ after writing them back")
        } catch {
            Oracle.check(false, "request JSON: members written back do not parse: \(error.reason)")
        }
    }
}

extension String {
    /// Two hex digits.
    fileprivate func leftPadded() -> String { count < 2 ? "0" + self : self }
}
