@_spi(Fuzzing) import ReceiptServer
import ReceiptVerification
import Testing

/// The hand-written request JSON reader: what it accepts, what it refuses, how it unescapes.
@Suite("RequestJSON", .timeLimit(.minutes(1)))
struct RequestJSONTests {
    static func parse(_ text: String) throws(ServerError) -> RequestJSON {
        try RequestJSON(parsing: Array(text.utf8))
    }

    @Test("reads strings, numbers, booleans, null and skips nested values")
    func readsMembers() throws {
        let json = try Self.parse(#" {"a":"x","n":-1.5e3,"t":true,"f":false,"z":null,"o":{"k":[1,{"d":"e"}]},"l":[]} "#)
        #expect(json["a"] == .string(Array("x".utf8)[...]))
        #expect(json["n"] == .number("-1.5e3"))
        #expect(json["t"] == .bool(true))
        #expect(json["f"] == .bool(false))
        #expect(json["z"] == .null)
        #expect(json["o"] == .composite)
        #expect(json["l"] == .composite)
    }

    @Test("unescapes every RFC 8259 escape, surrogate pairs included")
    func unescapes() throws {
        let json = try Self.parse(#"{"s":"a\/b\\c\"d\n\u00e9\ud83d\ude00"}"#)
        #expect(json["s"] == .string(Array("a/b\\c\"d\né😀".utf8)[...]))
    }

    @Test(
        "refuses what is not exactly one JSON object",
        arguments: [
            "", "[]", "\"s\"", "{", "{\"a\"}", "{\"a\":}", "{\"a\":1,}", "{\"a\":01}", "{\"a\":tru}",
            "{\"a\":\"\u{01}\"}", "{} {}", "{\"a\":\"\\x\"}",
            "{\"x\":" + String(repeating: "[", count: 40) + String(repeating: "]", count: 40) + "}",
        ])
    func refuses(text: String) {
        #expect(throws: ServerError(.invalidJSON, "")) { try Self.parse(text) }
    }

    @Test("typed accessors refuse the wrong JSON type")
    func typedAccessors() throws {
        let json = try Self.parse(#"{"s":1,"b":"true","c":"maybe"}"#)
        #expect(throws: ServerError(.invalidJSON, "")) { try json.string("s") }
        #expect(try json.bool("b") == true)
        #expect(throws: ServerError(.invalidJSON, "")) { try json.bool("c") }
        #expect(try json.string("absent") == nil)
    }
}
