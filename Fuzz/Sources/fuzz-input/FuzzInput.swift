import FuzzSupport
import ReceiptModel

// fuzz-input: what a client sends, before anything else looks at it. `ReceiptInput(bytes:)` recognizes DER,
// base64 text (quotes, white space, `data:` prefixes, URL-safe alphabet) and iOS 6 plist text; `Base64` is
// also checked on its own: whatever it decodes must re-encode and decode to the same bytes, and whatever it
// encodes must decode back.

@_cdecl("LLVMFuzzerTestOneInput")
public func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = LibFuzzer.bytes(data, size)
    FuzzInput.run(bytes)
    return 0
}

@_cdecl("fuzz_input_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    LibFuzzer.run(argc: argc, argv: argv, testOneInput: testOneInput)
}

enum FuzzInput {
    static func run(_ bytes: [UInt8]) {
        do {
            switch try ReceiptInput(bytes: bytes) {
            case .appReceipt(let receipt):
                Sink.consume(receipt.payload.inAppPurchases.count)
            case .iOS6(let receipt):
                Sink.consume(receipt.purchaseInfo.entries.count)
            }
        } catch {
            Sink.consume(error.code)
        }

        if let decoded = Base64.decode(bytes) {
            Oracle.check(decoded.count <= bytes.count, "base64 decoded \(bytes.count) bytes into \(decoded.count)")
            let again = Base64.decode(Array(Base64.encode(decoded).utf8))
            Oracle.check(again == decoded, "base64: decode(encode(decode(x))) differs from decode(x)")
        }
        let encoded = Array(Base64.encode(bytes).utf8)
        Oracle.check(encoded.count == (bytes.count + 2) / 3 * 4, "base64: encoded length \(encoded.count)")
        Oracle.check(Base64.decode(encoded) == bytes, "base64: decode(encode(x)) differs from x")
    }
}
