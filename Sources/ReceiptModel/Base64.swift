/// RFC 4648 base64 without Foundation: decoding tolerant of what receipts arrive wrapped in
/// (whitespace, line breaks, the URL-safe alphabet, missing padding), and standard encoding.
public enum Base64 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    /// Maps a byte to its 6-bit value; 0xFF marks bytes outside both alphabets.
    private static let values: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (value, character) in alphabet.enumerated() { table[Int(character)] = UInt8(value) }
        table[Int(UInt8(ascii: "-"))] = 62  // RFC 4648 §5 URL-safe alphabet
        table[Int(UInt8(ascii: "_"))] = 63
        return table
    }()

    /// Decodes base64 text; `nil` when it holds anything but base64 symbols, white space and
    /// trailing padding, or when its length cannot come from whole bytes.
    public static func decode(_ text: some Collection<UInt8>) -> [UInt8]? {
        var output: [UInt8] = []
        output.reserveCapacity(text.count / 4 * 3 + 3)
        var accumulator: UInt32 = 0
        var bits = 0
        var padding = 0
        for byte in text {
            switch byte {
            case UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "\t"):
                continue
            case UInt8(ascii: "="):
                padding += 1
                guard padding <= 2 else { return nil }
                continue
            default:
                let value = values[Int(byte)]
                guard value != 0xFF, padding == 0 else { return nil }
                accumulator = (accumulator << 6) | UInt32(value)
                bits += 6
                if bits >= 8 {
                    bits -= 8
                    output.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
                    accumulator &= (1 << UInt32(bits)) - 1
                }
            }
        }
        // A final group of one symbol (6 leftover bits) cannot encode a whole byte (RFC 4648 §4).
        guard bits != 6 else { return nil }
        return output
    }

    /// Encodes bytes with the standard alphabet and padding.
    public static func encode(_ bytes: some Collection<UInt8>) -> String {
        var output: [UInt8] = []
        output.reserveCapacity((bytes.count + 2) / 3 * 4)
        var iterator = bytes.makeIterator()
        while let first = iterator.next() {
            let second = iterator.next()
            let third = iterator.next()
            let group = UInt32(first) << 16 | UInt32(second ?? 0) << 8 | UInt32(third ?? 0)
            output.append(alphabet[Int(group >> 18 & 0x3F)])
            output.append(alphabet[Int(group >> 12 & 0x3F)])
            output.append(second == nil ? UInt8(ascii: "=") : alphabet[Int(group >> 6 & 0x3F)])
            output.append(third == nil ? UInt8(ascii: "=") : alphabet[Int(group & 0x3F)])
        }
        return String(decoding: output, as: UTF8.self)
    }
}
