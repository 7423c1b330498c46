@_spi(Fuzzing) package import ReceiptModel
package import ReceiptVerification

/// A JWS verdict as JSON, the same way for verify-local's report line and the server's `/v1/verify`:
///
/// ```json
/// {"verdict":"valid","reasons":[],"kind":"jws","payload_type":"transaction","environment":"Sandbox",
///  "validation_time":"receiptCreation","validated_at":"2025-…","chain":["CN=…",…],"payload":{…},
///  "nested":[{"verdict":…,"payload_type":…,"payload":{…}},…]}
/// ```
/// `payload` is the signed payload's members as signed (numbers as written); `nested` only for notifications.
package enum JWSVerdictJSON {
    /// verify-local's line for one file: `{"file", …}` then the members above.
    package static func report(file: String, _ verdict: JWSVerdict) -> [UInt8] {
        var writer = JSONWriter(capacity: 4096)
        writer.beginObject()
        writer.field("file", file)
        write(verdict, to: &writer)
        writer.endObject()
        return writer.bytes
    }

    /// The verdict's members, inside an object the caller opened.
    package static func write(_ verdict: JWSVerdict, to writer: inout JSONWriter) {
        writer.field("verdict", verdict.outcome.rawValue)
        VerdictJSON.writeReasons(verdict.reasons, to: &writer)
        writer.field("kind", "jws")
        if let payload = verdict.payload { writer.field("payload_type", payload.kind.rawValue) }
        if let environment = verdict.environment { writer.field("environment", environment.rawValue) }
        writer.field("validation_time", verdict.validationTime.name)
        if let instant = verdict.validationInstant { writer.field("validated_at", instant.description) }
        VerdictJSON.writeChain(verdict.chain, to: &writer)
        if let jws = verdict.jws {
            writer.key("payload")
            JSONValue.object(jws.payload).write(to: &writer)
        }
        guard !verdict.nested.isEmpty else { return }
        writer.key("nested")
        writer.beginArray()
        for inner in verdict.nested {
            writer.beginObject()
            write(inner, to: &writer)
            writer.endObject()
        }
        writer.endArray()
    }
}
