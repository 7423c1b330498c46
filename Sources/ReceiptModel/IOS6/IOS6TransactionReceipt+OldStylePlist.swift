extension IOS6TransactionReceipt {
    /// A reader for the flat subset of NeXTSTEP ("old-style") property lists that iOS 6 receipts use:
    /// one dictionary of quoted or bare string keys and values, `key = value;` each.
    ///
    /// Nested dictionaries, arrays and data (`<…>`) never occur in these receipts and are rejected.
    enum OldStylePlist {
        static func isWhitespace(_ byte: UInt8) -> Bool {
            byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
        }

        /// Reads `{ key = value; … }` and nothing after it, in steps: the opening brace, each entry
        /// (`readEntry(_:)`), at most `maximumEntries` of them with no key twice, the closing brace, the end.
        static func parseDictionary(_ bytes: ArraySlice<UInt8>, maximumEntries: Int) throws(ReceiptError)
            -> [String: String]
        {
            var cursor = Cursor(bytes: bytes)
            cursor.skipWhitespace()
            guard cursor.take(UInt8(ascii: "{")) else {
                throw ReceiptError(.unrecognizedFormat, "the property list does not start with '{'")
            }
            var result: [String: String] = [:]
            while true {
                cursor.skipWhitespace()
                if cursor.take(UInt8(ascii: "}")) { break }
                guard result.count < maximumEntries else {
                    throw ReceiptError(.tooLarge, "more than \(maximumEntries) property list entries")
                }
                let (key, value) = try readEntry(&cursor)
                guard result[key] == nil else {
                    throw ReceiptError(.duplicateAttribute, "the key \"\(key)\" occurs twice")
                }
                result[key] = value
            }
            cursor.skipWhitespace()
            guard cursor.isAtEnd else {
                throw ReceiptError(.invalidPayload, "bytes follow the property list at offset \(cursor.offset)")
            }
            return result
        }

        /// One `key = value;` entry, the cursor at its key; leaves the cursor after the `;`.
        private static func readEntry(_ cursor: inout Cursor) throws(ReceiptError) -> (key: String, value: String) {
            let key = try cursor.string()
            cursor.skipWhitespace()
            guard cursor.take(UInt8(ascii: "=")) else {
                throw ReceiptError(.invalidPayload, "expected '=' after \"\(key)\" at offset \(cursor.offset)")
            }
            cursor.skipWhitespace()
            let value = try cursor.string()
            cursor.skipWhitespace()
            guard cursor.take(UInt8(ascii: ";")) else {
                throw ReceiptError(.invalidPayload, "expected ';' after the value of \"\(key)\"")
            }
            return (key, value)
        }

        private struct Cursor {
            let bytes: ArraySlice<UInt8>
            var index: Int

            init(bytes: ArraySlice<UInt8>) {
                self.bytes = bytes
                index = bytes.startIndex
            }

            var isAtEnd: Bool { index >= bytes.endIndex }
            var offset: Int { index - bytes.startIndex }

            mutating func skipWhitespace() {
                while index < bytes.endIndex, OldStylePlist.isWhitespace(bytes[index]) { index += 1 }
            }

            mutating func take(_ byte: UInt8) -> Bool {
                guard index < bytes.endIndex, bytes[index] == byte else { return false }
                index += 1
                return true
            }

            /// A quoted string (with `\"`, `\\`, `\n`, `\t`, `\r` escapes) or a bare word.
            mutating func string() throws(ReceiptError) -> String {
                guard index < bytes.endIndex else {
                    throw ReceiptError(.invalidPayload, "the property list ends inside an entry")
                }
                if take(UInt8(ascii: "\"")) {
                    var out: [UInt8] = []
                    while true {
                        guard index < bytes.endIndex else {
                            throw ReceiptError(.invalidPayload, "an unterminated string in the property list")
                        }
                        let byte = bytes[index]
                        index += 1
                        if byte == UInt8(ascii: "\"") { break }
                        if byte == UInt8(ascii: "\\") {
                            guard index < bytes.endIndex else {
                                throw ReceiptError(.invalidPayload, "an escape at the end of the property list")
                            }
                            let escaped = bytes[index]
                            index += 1
                            switch escaped {
                            case UInt8(ascii: "n"): out.append(0x0A)
                            case UInt8(ascii: "t"): out.append(0x09)
                            case UInt8(ascii: "r"): out.append(0x0D)
                            case UInt8(ascii: "\""), UInt8(ascii: "\\"): out.append(escaped)
                            default:
                                throw ReceiptError(.invalidPayload, "an unsupported escape in the property list")
                            }
                        } else {
                            out.append(byte)
                        }
                    }
                    return String(decoding: out, as: UTF8.self)
                }
                let start = index
                while index < bytes.endIndex, Self.isBareWordByte(bytes[index]) { index += 1 }
                guard index > start else {
                    throw ReceiptError(
                        .invalidPayload, "unexpected byte 0x\(String(bytes[index], radix: 16)) in the property list")
                }
                return String(decoding: bytes[start..<index], as: UTF8.self)
            }

            private static func isBareWordByte(_ byte: UInt8) -> Bool {
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                    UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "$"), UInt8(ascii: "+"),
                    UInt8(ascii: "/"), UInt8(ascii: ":"), UInt8(ascii: "."), UInt8(ascii: "-"):
                    true
                default:
                    false
                }
            }
        }
    }
}
