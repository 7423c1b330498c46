import Hummingbird
import NIOCore
@_spi(Fuzzing) import ReceiptModel
import ReceiptVerification

extension AppleStandIn {
    /// HTTP 200 (or `status`) with a JSON body.
    static func apiJSON(_ bytes: [UInt8], status: HTTPResponse.Status = .ok) -> Response {
        Response(
            status: status, headers: [.contentType: "application/json"],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    /// `{"errorCode": N, "errorMessage": …}` with that HTTP status, Apple's message for the codes it knows.
    static func apiError(status: Int, code: Int64) -> Response {
        var writer = JSONWriter()
        writer.beginObject()
        writer.field("errorCode", code)
        writer.field("errorMessage", errorMessage(code))
        writer.endObject()
        return apiJSON(writer.bytes, status: HTTPResponse.Status(code: status))
    }

    /// 404 4040010: what an environment answers for an id it does not know.
    static var transactionNotFound: Response { apiError(status: 404, code: 4_040_010) }

    private static func errorMessage(_ code: Int64) -> String {
        switch code {
        case 4_000_005: "Invalid revision."
        case 4_000_006: "Invalid transaction id."
        case 4_000_009: "Invalid pagination token."
        case 4_000_015: "Invalid start date."
        case 4_000_016: "Invalid end date."
        case 4_000_023: "Invalid request."
        case 4_040_002, 4_040_004, 4_040_006: "Not found. Please try again."
        case 4_040_008: "Test notification not found."
        case 4_040_010: "Transaction id not found."
        case 4_290_000: "Rate limit exceeded."
        case 5_000_001: "An unknown error occurred. Please try again."
        default: "An error occurred."
        }
    }

    /// `jws` with its signature broken: the first symbol of the signature segment changed to another base64url
    /// symbol, so the text stays a well-formed compact JWS of the same length and only the signature is wrong.
    static func forged(_ jws: String) -> String {
        guard let dot = jws.lastIndex(of: "."), let first = jws.index(dot, offsetBy: 1, limitedBy: jws.endIndex),
            first < jws.endIndex
        else { return jws + "A" }
        let replacement: Character = jws[first] == "A" ? "B" : "A"
        var forged = jws
        forged.replaceSubrange(first...first, with: String(replacement))
        return forged
    }

    /// The envelope members every signed-transactions answer shares: `bundleId`, `appAppleId` (Production only)
    /// and `environment`.
    static func writeEnvelope(
        _ data: MintedServerAPIData, _ environment: ReceiptEnvironment, to writer: inout JSONWriter
    ) {
        writer.field("bundleId", data.bundleID)
        if environment == .production, let appAppleID = data.appAppleID { writer.field("appAppleId", appAppleID) }
        writer.field("environment", environment.rawValue)
    }

    /// A JSON array of JWS strings, the one at `forging` broken.
    static func writeSigned(_ jws: some Sequence<String>, forging: Int?, to writer: inout JSONWriter) {
        writer.beginArray()
        for (index, text) in jws.enumerated() { writer.string(index == forging ? forged(text) : text) }
        writer.endArray()
    }
}
