import Testing

@testable import ReceiptModel

/// The package's one JSON reader: both modes read the same grammar, keep byte ranges and bytes exactly,
/// and turn every malformed or hostile body into a `Failure`, never a trap.
@Suite struct JSONReaderTests {
    static func tree(_ text: String, depth: Int = 64) throws(JSONReader.Failure) -> [JSONReader.Member] {
        var reader = JSONReader(Array(text.utf8), maximumDepth: depth)
        return try reader.topLevelMembers()
    }

    static func flat(_ text: String, depth: Int = 16) throws(JSONReader.Failure) -> [(
        key: String, value: JSONReader.Scalar
    )] {
        var reader = JSONReader(Array(text.utf8), maximumDepth: depth)
        return try reader.flatMembers()
    }

    @Test func treeModeKeepsOrderDuplicatesAndEachValuesByteRange() throws {
        let text = #" {"status":0, "receipt":{"a":[1,2.5e3,true,null],"a":"x"} ,"status":"7"} "#
        let members = try Self.tree(text)
        #expect(members.map(\.key) == ["status", "receipt", "status"])
        let bytes = Array(text.utf8)
        #expect(String(decoding: bytes[members[1].range], as: UTF8.self) == #"{"a":[1,2.5e3,true,null],"a":"x"}"#)
        guard case .object(let receipt) = members[1].value else {
            Issue.record("receipt is not an object")
            return
        }
        #expect(receipt.members.map(\.key) == ["a", "a"])
        #expect(receipt["a"] == .array([.number("1"), .number("2.5e3"), .bool(true), .null]))
        // Written back with the package's one writer, the object is what was read.
        #expect(members[1].value.jsonBytes == Array(#"{"a":[1,2.5e3,true,null],"a":"x"}"#.utf8))
    }

    @Test func flatModeKeepsStringsAsBytesAndOnlyChecksNestedValues() throws {
        let members = try Self.flat(#"{"receipt-data":"MIIG\/w==","n":-0.5,"b":false,"z":null,"o":{"k":[{}]}}"#)
        #expect(members.map(\.key) == ["receipt-data", "n", "b", "z", "o"])
        #expect(members[0].value == .string(Array("MIIG/w==".utf8)[...]))
        #expect(members[1].value == .number("-0.5"))
        #expect(members[2].value == .bool(false))
        #expect(members[3].value == .null)
        #expect(members[4].value == .composite)
    }

    /// A string's plain run is scanned sixteen, then eight bytes at a time: a quote, backslash or control character at
    /// any offset of a word, in a run of any length, still ends it where it is.
    @Test func everyPositionOfARunEndsAtItsFirstSpecialByte() throws {
        for length in 0..<40 {
            for (special, ends) in [(#"\""#, "\""), (#"\\"#, "\\"), (#"\/"#, "/"), ("é", "é")] {
                let plain = String(repeating: "A", count: length)
                let members = try Self.flat(#"{"s":""# + plain + special + "B" + plain + #""}"#)
                let expected = Array((plain + ends + "B" + plain).utf8)[...]
                #expect(members.first?.value == .string(expected), "length \(length)")
            }
            let control = #"{"s":""# + String(repeating: "A", count: length) + "\u{1}" + #""}"#
            #expect(throws: JSONReader.Failure.self, "length \(length)") { try Self.flat(control) }
        }
        #expect(JSONReader.mayEndPlainRun(0x4141_4141_4141_4141) == false)
        for byte in [0x00, 0x1F, 0x22, 0x5C] as [UInt64] {
            for shift in stride(from: 0, to: 64, by: 8) {
                let word = (0x4141_4141_4141_4141 & ~(0xFF << UInt64(shift))) | byte << UInt64(shift)
                #expect(JSONReader.mayEndPlainRun(word), "byte \(byte) at bit \(shift)")
            }
        }
    }

    @Test func escapesAndSurrogatePairsDecodeToUTF8() throws {
        let members = try Self.flat(#"{"s":"\"\\\/\b\f\n\r\t\u00e9\ud83d\ude00x"}"#)
        let expected = Array("\"\\/\u{8}\u{c}\n\r\té😀x".utf8)
        #expect(members.first?.value == .string(expected[...]))
    }

    /// A lone surrogate escape stands for no character: refused in both modes, never repaired into U+FFFD (which
    /// would make `"\ud800"` and `"\udfff"` one string). Bytes that are not UTF-8 are refused where a string is read.
    @Test(arguments: [#"\ud800"#, #"\udfff"#, #"\ud800x"#, #"\ud800\u0041"#, #"\ud83d\ud83d"#])
    func loneSurrogatesAreRefused(_ escape: String) {
        let body = #"{"s":""# + escape + #""}"#
        #expect(throws: JSONReader.Failure.self) { try Self.flat(body) }
        #expect(throws: JSONReader.Failure.self) { try Self.tree(body) }
    }

    @Test func bytesThatAreNotUTF8AreRefusedInTreeMode() {
        let body: [UInt8] = Array(#"{"s":""#.utf8) + [0xFF, 0xFE] + Array(#""}"#.utf8)
        var reader = JSONReader(body, maximumDepth: 4)
        #expect(throws: JSONReader.Failure.self) { try reader.topLevelMembers() }
    }

    @Test(arguments: [
        "", " ", "[]", "\"x\"", "{", "{\"a\"}", "{\"a\":}", "{\"a\":1,}", "{\"a\":1} x", "{\"a\":01}", "{\"a\":1.}",
        "{\"a\":1e}", "{\"a\":tru}", "{\"a\":\"\\x\"}", "{\"a\":\"\\u12\"}", "{\"a\":\"\u{1}\"}", "{\"a\":\"open}",
        "{a:1}", "{\"a\":-}", "{\"a\":[1 2]}", "{\"a\":\"\\",
    ])
    func malformedBodiesAreFailuresInBothModes(_ text: String) {
        #expect(throws: JSONReader.Failure.self) { try Self.tree(text) }
        #expect(throws: JSONReader.Failure.self) { try Self.flat(text) }
    }

    @Test func nestingAndNumbersAreBounded() throws {
        // Tree mode: a member's value is depth 1, so a maximum of 17 allows 17 nested arrays, not 18.
        let seventeen = String(repeating: "[", count: 17) + String(repeating: "]", count: 17)
        #expect(throws: JSONReader.Failure.self) { try Self.tree("{\"a\":[\(seventeen)]}", depth: 17) }
        _ = try Self.tree("{\"a\":\(seventeen)}", depth: 17)
        // Flat mode counts a member's first object or array as depth 2, as the server's reader always did:
        // a maximum of 16 allows 15 nested arrays.
        let fifteen = String(repeating: "[", count: 15) + String(repeating: "]", count: 15)
        _ = try Self.flat("{\"a\":\(fifteen)}", depth: 16)
        #expect(throws: JSONReader.Failure.self) { try Self.flat("{\"a\":[\(fifteen)]}", depth: 16) }
        let hostile = String(repeating: "[", count: 100_000)
        #expect(throws: JSONReader.Failure.self) { try Self.tree("{\"a\":\(hostile)}") }
        #expect(throws: JSONReader.Failure.self) { try Self.flat("{\"a\":\(hostile)}") }
        // Numbers: capped in tree mode (Apple's answers), bounded only by the body in flat mode (requests).
        let long = String(repeating: "9", count: JSONReader.maximumNumberLength + 1)
        #expect(throws: JSONReader.Failure.self) { try Self.tree("{\"a\":\(long)}") }
        _ = try Self.tree("{\"a\":\(long.dropFirst())}")
        #expect(try Self.flat("{\"a\":\(long)}").first?.value == .number(long))
    }

    @Test func flatModeChecksNestedValuesItSkips() throws {
        let large =
            "[" + Array(repeating: #"{"k":"v\u00e9","n":[1,-2.5e3,true,null]}"#, count: 10_000).joined(separator: ",")
            + "]"
        #expect(try Self.flat("{\"a\":\(large),\"b\":1}").map(\.key) == ["a", "b"])
        for broken in [#"[{"k" 1}]"#, #"[{k:1}]"#, #"["\q"]"#, #"["\u12"]"#, "[1,]", "[tru]", #"{"k":"v",}"#] {
            #expect(throws: JSONReader.Failure.self, "\(broken)") { try Self.flat("{\"a\":\(broken)}") }
        }
    }

    @Test func documentReadsAnyOneValue() throws {
        var reader = JSONReader(Array(" [1,{\"k\":\"v\"}] ".utf8), maximumDepth: 4)
        #expect(
            try reader.document()
                == .array([.number("1"), .object(JSONObject(members: [.init(key: "k", value: .string("v"))]))]))
        var trailing = JSONReader(Array("1 2".utf8), maximumDepth: 4)
        #expect(throws: JSONReader.Failure.self) { try trailing.document() }
    }
}
