import FuzzSupport
@_spi(Fuzzing) import ReceiptModel

// fuzz-ios6: iOS 6 transaction receipts. Each input is tried as
//   1. the outer old-style plist text (`{ "signature" = "…"; "purchase-info" = "…"; … }`),
//   2. base64 of that text (what clients send),
//   3. the inner purchase-info plist: the input is base64-encoded into an outer plist with a well-formed
//      signature blob, so mutations reach the inner parser without having to keep base64 intact,
//   4. the binary signature blob (`version ‖ signature ‖ length ‖ certificate`).
// Every accessor of a decoded receipt is read, dates rendered as text.

@_cdecl("LLVMFuzzerTestOneInput")
public func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = LibFuzzer.bytes(data, size)
    FuzzIOS6.run(bytes)
    return 0
}

@_cdecl("fuzz_ios6_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    LibFuzzer.run(argc: argc, argv: argv, testOneInput: testOneInput)
}

enum FuzzIOS6 {
    /// A structurally valid signature blob: version 2, a 128-byte signature, a 1-byte "certificate".
    static let signatureBlob: [UInt8] = [2] + [UInt8](repeating: 0xA5, count: 128) + [0, 0, 0, 1, 0x30]

    static func run(_ bytes: [UInt8]) {
        decode { () throws(ReceiptError) in try IOS6TransactionReceipt(plistText: bytes[...]) }
        decode { () throws(ReceiptError) in try IOS6TransactionReceipt(base64Encoded: bytes[...]) }
        let outer = Array(
            ("{\n\t\"signature\" = \"" + Base64.encode(signatureBlob) + "\";\n\t\"purchase-info\" = \""
                + Base64.encode(bytes) + "\";\n\t\"pod\" = \"100\";\n\t\"signing-status\" = \"0\";\n}").utf8)
        decode { () throws(ReceiptError) in try IOS6TransactionReceipt(plistText: outer[...]) }
        switch Result(catching: { () throws(ReceiptError) in try IOS6TransactionReceipt.Signature(blob: bytes) }) {
        case .success(let signature):
            Oracle.check(
                1 + signature.signature.count + 4 + signature.certificate.count == bytes.count,
                "ios6: the signature blob's parts do not add up to the blob")
        case .failure(let error):
            Sink.consume(error.code)
        }
        Sink.consume(IOS6TransactionReceipt.looksLikePlistText(bytes[...]))
    }

    static func decode(_ body: () throws(ReceiptError) -> IOS6TransactionReceipt) {
        switch Result(catching: body) {
        case .success(let receipt): read(receipt)
        case .failure(let error): Sink.consume(error.code)
        }
    }

    static func read(_ receipt: IOS6TransactionReceipt) {
        Sink.consume(receipt.entries.count)
        Sink.consume(receipt.environment)
        Sink.consume(receipt.pod)
        Sink.consume(receipt.signingStatus)
        Sink.consume(receipt.signedBytes.count)
        Sink.consume(receipt.signature.version)
        let info = receipt.purchaseInfo
        Sink.consume(info.entries.count)
        Sink.consume(info.bundleID)
        Sink.consume(info.bundleVersion)
        Sink.consume(info.productID)
        Sink.consume(info.transactionID)
        Sink.consume(info.originalTransactionID)
        Sink.consume(info.itemID)
        Sink.consume(info.webOrderLineItemID)
        Sink.consume(info.quantity)
        for date in [info.purchaseDate, info.originalPurchaseDate, info.expiresDate] {
            Sink.consume(date?.secondsSince1970)
            Sink.consume(date?.description)
        }
    }
}
