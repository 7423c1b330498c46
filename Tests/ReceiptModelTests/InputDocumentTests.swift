import Foundation
@_spi(Fuzzing) import ReceiptModel
import TestSupport
import Testing

/// How one input is recognized (`InputDocument`): each rule exact, never a prefix.
@Suite struct InputDocumentTests {
    static func recognize(_ text: String) throws -> InputDocument {
        try InputDocument(recognizing: Array(text.utf8)[...])
    }

    static func fixture(_ name: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: SharedTestData.packageRoot.appendingPathComponent("fixtures/\(name)")))
    }

    /// A base64 iOS 6 receipt whose plist text starts with `{"` starts with `eyJ`, as a JWS does: it has no dot, so it
    /// is a receipt.
    @Test func aBase64ReceiptStartingLikeAJWSIsAReceipt() throws {
        let bytes = try Self.fixture("ios6-compact-plist.b64")
        #expect(bytes.starts(with: Array("eyJ".utf8)))
        guard case .receipt = try InputDocument(recognizing: bytes[...]) else {
            Issue.record("taken for a JWS")
            return
        }
        guard case .iOS6? = try? ReceiptInput(bytes: bytes) else {
            Issue.record("not decoded as an iOS 6 receipt")
            return
        }
    }

    @Test(arguments: [
        "eyJhbGciOiJFUzI1NiJ9.eyJhIjoxfQ.AA", "eyJhbGciOiJFUzI1NiJ9.eyJhIjoxfQ", "a.b", "  \"x.y.z\"\n",
        "eyJhbGciOiJFUzI1NiJ9.eyJhIjoxfQ.QUJD+/==",
    ])
    func textWithADotAmongBase64SymbolsIsAJWS(text: String) throws {
        guard case .jws(_, let kind, let member) = try Self.recognize(text) else {
            Issue.record("\(text) not taken for a JWS")
            return
        }
        #expect(kind == nil && member == nil)
    }

    @Test(arguments: ["MIIT", "eyJzaWduYXR1cmUiID0g", "data:application/pkcs7-mime;base64,MIIT", "{ \"a\" = \"b\"; }"])
    func anythingElseIsLeftToTheReceiptDecoder(text: String) throws {
        #expect(try Self.recognize(text) == .receipt(Array(text.utf8)[...]))
    }

    @Test func aDERReceiptIsAReceipt() throws {
        let der = try Self.fixture("valid-sha256.receipt")
        #expect(try InputDocument(recognizing: der[...]) == .receipt(der[...]))
    }

    /// The member that holds a JWS says what it is.
    @Test(arguments: [
        ("signedPayload", JWSPayload.Kind.notification), ("signedTransactionInfo", .transaction),
        ("signedRenewalInfo", .renewalInfo), ("signedAppTransactionInfo", .appTransaction),
        ("signed_transaction", .transaction),
    ])
    func aJSONMemberGivesItsJWSAKind(member: String, kind: JWSPayload.Kind) throws {
        let document = try Self.recognize(#" {"\#(member)" : "a.b.c"}"#)
        #expect(document == .jws(Array("a.b.c".utf8)[...], kind: kind, member: member))
    }

    @Test(arguments: ["receipt-data", "receipt_data"])
    func aJSONReceiptMemberIsAReceipt(member: String) throws {
        #expect(try Self.recognize(#"{"\#(member)":"MIIT","password":"x"}"#) == .receipt(Array("MIIT".utf8)[...]))
    }

    @Test(arguments: [
        #"{"hello":1}"#, #"{"signedPayload":"a.b.c","receipt-data":"MIIT"}"#, #"{"signedPayload":1}"#,
        #"{"signedPayload":"a.b.c""#, "{}",
    ])
    func otherJSONIsUnrecognized(text: String) {
        #expect(throws: ReceiptError(.unrecognizedFormat, "")) { try Self.recognize(text) }
    }

    @Test func theRealNotificationBodyIsANotification() throws {
        guard SharedTestData.isAvailable else { return }
        let body = try SharedTestData.bytes(
            at: SharedTestData.receiptsDirectory.appendingPathComponent(
                "notifications/n2-sessionpro-did-renew-sandbox-2025.json"))
        guard case .jws(_, let kind, let member) = try InputDocument(recognizing: body[...]) else {
            Issue.record("not a JWS")
            return
        }
        #expect(kind == .notification)
        #expect(member == "signedPayload")
    }
}
