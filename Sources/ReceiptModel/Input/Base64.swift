/// RFC 4648 base64 without Foundation: decoding tolerant of what receipts arrive wrapped in
/// (whitespace, line breaks, the URL-safe alphabet, missing padding), and standard encoding.
///
/// Both directions run over raw buffers with a lookup table: the server decodes every request's
/// receipt and encodes raw attributes into every response, so this is on the hot path.
public enum Base64 {
    private static let alphabet: [UInt8] = Array(
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    /// Maps a byte to its 6-bit value; 0xFF marks bytes outside both alphabets, 0xFE white space.
    private static let values: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (value, character) in alphabet.enumerated() { table[Int(character)] = UInt8(value) }
        table[Int(UInt8(ascii: "-"))] = 62  // RFC 4648 §5 URL-safe alphabet
        table[Int(UInt8(ascii: "_"))] = 63
        for space in [UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "\t")] {
            table[Int(space)] = 0xFE
        }
        return table
    }()

    /// Decodes base64 text; `nil` when it holds anything but base64 symbols, white space and
    /// trailing padding, or when its length cannot come from whole bytes.
    public static func decode(_ text: ArraySlice<UInt8>) -> [UInt8]? {
        var output = [UInt8](repeating: 0, count: text.count / 4 * 3 + 3)
        let produced: Int? = values.withUnsafeBufferPointer { table in
            text.withUnsafeBufferPointer { input in
                output.withUnsafeMutableBufferPointer { out in
                    var written = 0
                    var accumulator: UInt32 = 0
                    var bits = 0
                    var padding = 0
                    for byte in input {
                        let value = table[Int(byte)]
                        if value < 64 {
                            guard padding == 0 else { return nil }
                            accumulator = (accumulator << 6) | UInt32(value)
                            bits += 6
                            if bits >= 8 {
                                bits -= 8
                                out[written] = UInt8(truncatingIfNeeded: accumulator >> UInt32(bits))
                                written += 1
                                accumulator &= (1 << UInt32(bits)) - 1
                            }
                        } else if value == 0xFE {
                            continue
                        } else if byte == UInt8(ascii: "=") {
                            padding += 1
                            guard padding <= 2 else { return nil }
                        } else {
                            return nil
                        }
                    }
                    // A final group of one symbol (6 leftover bits) cannot encode a whole byte (RFC 4648 §4).
                    return bits == 6 ? nil : written
                }
            }
        }
        guard let produced else { return nil }
        output.removeSubrange(produced...)
        return output
    }

    /// Decodes base64 text; see ``decode(_:)-(ArraySlice<UInt8>)``.
    public static func decode(_ text: [UInt8]) -> [UInt8]? { decode(text[...]) }

    /// Encodes bytes with the standard alphabet and padding.
    public static func encode(_ bytes: ArraySlice<UInt8>) -> String {
        var output: [UInt8] = []
        append(bytes, to: &output)
        return String(decoding: output, as: UTF8.self)
    }

    /// Encodes bytes with the standard alphabet and padding.
    public static func encode(_ bytes: [UInt8]) -> String { encode(bytes[...]) }

    /// Appends the base64 of `bytes` (standard alphabet, padded) to `output`.
    public static func append(_ bytes: ArraySlice<UInt8>, to output: inout [UInt8]) {
        let start = output.count
        let length = (bytes.count + 2) / 3 * 4
        output.append(contentsOf: repeatElement(UInt8(ascii: "="), count: length))
        alphabet.withUnsafeBufferPointer { symbols in
            bytes.withUnsafeBufferPointer { input in
                output.withUnsafeMutableBufferPointer { out in
                    var index = 0
                    var position = start
                    while index < input.count {
                        let remaining = input.count - index
                        let group =
                            UInt32(input[index]) << 16
                            | (remaining > 1 ? UInt32(input[index + 1]) << 8 : 0)
                            | (remaining > 2 ? UInt32(input[index + 2]) : 0)
                        out[position] = symbols[Int(group >> 18 & 0x3F)]
                        out[position + 1] = symbols[Int(group >> 12 & 0x3F)]
                        if remaining > 1 { out[position + 2] = symbols[Int(group >> 6 & 0x3F)] }
                        if remaining > 2 { out[position + 3] = symbols[Int(group & 0x3F)] }
                        index += 3
                        position += 4
                    }
                }
            }
        }
    }
}
