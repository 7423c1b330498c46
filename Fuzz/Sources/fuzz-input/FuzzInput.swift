import FuzzSupport
@_spi(Fuzzing) import ReceiptModel

// fuzz-input: what a client sends, before anything else looks at it. `InputDocument(recognizing:)` tells a receipt
// from a JWS and from a JSON object holding either (the CLI's rules); `ReceiptInput(bytes:)` recognizes DER,
// base64 text (quotes, white space, `data:` prefixes, URL-safe alphabet) and iOS 6 plist text; `Base64` is
// also checked on its own: it must decode exactly as a plain symbol-by-symbol decoder (its whole groups take a
// faster path), whatever it decodes must re-encode and decode to the same bytes, and whatever it encodes must decode
// back.
//
// Checked besides "does not trap": text taken for a JWS has a dot and no byte outside base64 and the dot, so no
// receipt's base64 is ever one.

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
        switch try? InputDocument(recognizing: bytes[...]) {
        case .jws(let text, let kind, let member)?:
            Oracle.check(
                member != nil || (text.contains(UInt8(ascii: ".")) && Base64.decode(text) == nil),
                "a JWS on its own that base64 could decode")
            Sink.consume(kind)
        case .receipt(let receipt)?:
            Sink.consume(receipt.count)
        case nil:
            break
        }
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

        Oracle.check(Base64.decode(bytes) == plainBase64(bytes), "base64: differs from the plain decoder")
        if let decoded = Base64.decode(bytes) {
            Oracle.check(decoded.count <= bytes.count, "base64 decoded \(bytes.count) bytes into \(decoded.count)")
            let again = Base64.decode(Array(Base64.encode(decoded).utf8))
            Oracle.check(again == decoded, "base64: decode(encode(decode(x))) differs from decode(x)")
        }
        let encoded = Array(Base64.encode(bytes).utf8)
        Oracle.check(encoded.count == (bytes.count + 2) / 3 * 4, "base64: encoded length \(encoded.count)")
        Oracle.check(Base64.decode(encoded) == bytes, "base64: decode(encode(x)) differs from x")
    }

    /// Base64 read one symbol at a time, with `Base64.decode`'s rules (both alphabets, white space skipped, at most
    /// two `=` and only at the end, no lone last symbol): the reference its faster path must agree with.
    static func plainBase64(_ text: [UInt8]) -> [UInt8]? {
        var output: [UInt8] = []
        var accumulator: UInt32 = 0
        var bits = 0
        var padding = 0
        for byte in text {
            let value: UInt32
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): value = UInt32(byte - UInt8(ascii: "A"))
            case UInt8(ascii: "a")...UInt8(ascii: "z"): value = UInt32(byte - UInt8(ascii: "a")) + 26
            case UInt8(ascii: "0")...UInt8(ascii: "9"): value = UInt32(byte - UInt8(ascii: "0")) + 52
            case UInt8(ascii: "+"), UInt8(ascii: "-"): value = 62
            case UInt8(ascii: "/"), UInt8(ascii: "_"): value = 63
            case UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "\t"): continue
            case UInt8(ascii: "="):
                padding += 1
                if padding > 2 { return nil }
                continue
            default: return nil
            }
            if padding > 0 { return nil }
            accumulator = (accumulator << 6 | value) & 0xFFFF
            bits += 6
            if bits >= 8 {
                bits -= 8
                output.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
            }
        }
        return bits == 6 ? nil : output
    }
}
