import BER
import FuzzSupport
import ReceiptModel
import ReceiptRemote

// fuzz-receipt: the PKCS#7 container and the receipt payload. Each input is decoded twice: as a whole receipt
// (`AppReceipt(berEncoded:)`, SignedData then payload) and as a bare payload (`ReceiptPayload(berEncoded:)`,
// the SET OF ReceiptAttribute, reached directly so mutations need not keep a valid container around it).
// Every decoded field is read, and the payload is rendered as Apple's `receipt` JSON, which must be valid
// UTF-8 and parse back (with the remote fallback's strict parser) with the same number of purchases.

@_cdecl("LLVMFuzzerTestOneInput")
public func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = LibFuzzer.bytes(data, size)
    FuzzReceipt.run(bytes)
    return 0
}

@_cdecl("fuzz_receipt_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    LibFuzzer.run(argc: argc, argv: argv, testOneInput: testOneInput)
}

enum FuzzReceipt {
    /// A fixed request date for the rendering (never the clock).
    static let requestDate = ReceiptDate(clampingMillisecondsSince1970: 1_750_000_000_123)

    static func run(_ bytes: [UInt8]) {
        do {
            let receipt = try AppReceipt(berEncoded: bytes)
            read(receipt.signedData)
            read(receipt.payload)
        } catch {
            Sink.consume(error.code)
        }
        do {
            read(try ReceiptPayload(berEncoded: bytes[...]))
        } catch {
            Sink.consume(error.code)
        }
    }

    static func read(_ signedData: SignedData) {
        Sink.consume(signedData.version)
        Sink.consume(signedData.digestAlgorithms.map(\.description))
        Sink.consume(signedData.eContentType.description)
        Sink.consume(signedData.certificates.map(\.count))
        for signer in signedData.signerInfos {
            Sink.consume(signer.version)
            Sink.consume(signer.issuer?.count)
            Sink.consume(signer.serialNumber?.count)
            Sink.consume(signer.subjectKeyIdentifier?.count)
            Sink.consume(signer.digestAlgorithm.description)
            Sink.consume(signer.signedAttributes?.count)
            Sink.consume(signer.messageDigest?.count)
            Sink.consume(signer.contentType?.description)
            Sink.consume(signer.signatureAlgorithm.parameters?.count)
            Sink.consume(signer.signature.count)
        }
    }

    static func read(_ payload: ReceiptPayload) {
        Sink.consume(payload.receiptType)
        Sink.consume(payload.bundleID)
        Sink.consume(payload.applicationVersion)
        Sink.consume(payload.ageRating)
        Sink.consume(payload.originalApplicationVersion)
        Sink.consume(payload.creationDate?.description)
        Sink.consume(payload.expirationDate?.description)
        Sink.consume(payload.originalPurchaseDate?.description)
        Sink.consume(payload.attributes.count)
        Sink.consume(payload.unknownAttributes.map(\.type))
        for purchase in payload.inAppPurchases {
            Sink.consume(purchase.purchaseDate?.description)
            Sink.consume(purchase.productType?.description)
            Sink.consume(purchase.attributes.count)
            Sink.consume(purchase.unknownAttributes.count)
        }

        let json = AppleReceiptJSON.render(payload, requestDate: requestDate)
        Oracle.check(String(validating: json, as: UTF8.self) != nil, "receipt JSON is not valid UTF-8")
        let wrapped = Array("{\"status\":0,\"receipt\":".utf8) + json + Array("}".utf8)
        do {
            let parsed = try VerifyReceiptResponse(body: wrapped)
            let count = parsed.receipt?["in_app"]?.arrayValue?.count
            Oracle.check(
                count == payload.inAppPurchases.count,
                "receipt JSON shows \(count.map(String.init) ?? "no") in_app entries for \(payload.inAppPurchases.count) purchases"
            )
        } catch {
            Oracle.check(
                false,
                "receipt JSON does not parse: \(error.reason): \(String(decoding: json.prefix(300), as: UTF8.self))")
        }
    }
}
