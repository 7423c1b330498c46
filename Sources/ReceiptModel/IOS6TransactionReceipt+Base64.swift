extension IOS6TransactionReceipt {
    /// A strict RFC 4648 §4 base64 decoder for the iOS 6 receipt's layers: whitespace is skipped,
    /// padding is optional at the very end, anything else is an error. No Foundation in this layer.
    enum Base64 {
        private static let table: [UInt8] = {
            var table = [UInt8](repeating: 0xFF, count: 256)
            for (value, character) in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8.enumerated() {
                table[Int(character)] = UInt8(value)
            }
            return table
        }()

        static func decode(_ text: ArraySlice<UInt8>, what: String) throws(ReceiptError) -> [UInt8] {
            var output: [UInt8] = []
            output.reserveCapacity(text.count / 4 * 3 + 3)
            var accumulator: UInt32 = 0
            var bits = 0
            var padding = 0
            for byte in text {
                if OldStylePlist.isWhitespace(byte) { continue }
                if byte == UInt8(ascii: "=") {
                    padding += 1
                    guard padding <= 2 else { throw ReceiptError(.invalidBase64, "\(what): too much padding") }
                    continue
                }
                let value = table[Int(byte)]
                guard value != 0xFF, padding == 0 else {
                    throw ReceiptError(.invalidBase64, "\(what): byte 0x\(String(byte, radix: 16)) is not base64")
                }
                accumulator = accumulator << 6 | UInt32(value)
                bits += 6
                if bits >= 8 {
                    bits -= 8
                    output.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
                    accumulator &= (1 << UInt32(bits)) - 1
                }
            }
            // 6 leftover bits cannot come from whole bytes (RFC 4648 §4: the last group has 2 or 3 symbols).
            guard bits != 6 else { throw ReceiptError(.invalidBase64, "\(what): truncated base64") }
            return output
        }
    }
}
