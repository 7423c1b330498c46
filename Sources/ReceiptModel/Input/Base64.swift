/// RFC 4648 base64 without Foundation: decoding tolerant of what receipts arrive wrapped in
/// (whitespace, line breaks, the URL-safe alphabet, missing padding), and standard encoding.
///
/// Both directions run over raw buffers with a lookup table: the server decodes every request's
/// receipt and encodes raw attributes into every response, so this is on the hot path.
public enum Base64 {
    /// The standard alphabet (RFC 4648 §4), read through its pointer: no array, no lazy initialization.
    private static let alphabet: StaticString = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"

    /// Maps a byte to its 6-bit value; 0xFF marks bytes outside both alphabets, 0xFE white space.
    private static let values: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for value in 0..<64 { table[Int(alphabet.utf8Start[value])] = UInt8(value) }
        table[Int(UInt8(ascii: "-"))] = 62  // RFC 4648 §5 URL-safe alphabet
        table[Int(UInt8(ascii: "_"))] = 63
        for space in [UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "\t")] {
            table[Int(space)] = 0xFE
        }
        return table
    }()

    /// Maps two bytes, read as one little-endian `UInt16` (the first byte low), to their 12 bits (the first symbol's
    /// value high); 0x8000 marks a pair with any byte that is not a symbol of either alphabet (white space, padding,
    /// anything else). 128 KB, built once: it halves the lookups per group of four, the cost of decoding a request's
    /// receipt (BENCHMARKS.md, issue 28, step 21).
    private static let pairValues: [UInt16] = {
        var table = [UInt16](repeating: 0x8000, count: 1 << 16)
        for first in 0..<256 where values[first] < 64 {
            for second in 0..<256 where values[second] < 64 {
                table[first | second << 8] = UInt16(values[first]) << 6 | UInt16(values[second])
            }
        }
        return table
    }()

    /// Decodes base64 text; `nil` when it holds anything but base64 symbols, white space and
    /// trailing padding, or when its length cannot come from whole bytes.
    public static func decode(_ text: ArraySlice<UInt8>) -> [UInt8]? {
        var decoded = true
        // Written from the start, so only the bytes produced are ever counted as initialized (a group's store may
        // write one byte past them, inside the capacity): no clearing of a receipt-sized buffer first.
        let output = [UInt8](unsafeUninitializedCapacity: text.count / 4 * 3 + 3) { out, initialized in
            let produced = values.withUnsafeBufferPointer { table in
                pairValues.withUnsafeBufferPointer { pairs in
                    text.withUnsafeBufferPointer { input in decode(input, table: table, pairs: pairs, to: out) }
                }
            }
            decoded = produced != nil
            initialized = produced ?? 0
        }
        return decoded ? output : nil
    }

    /// Decodes `input` into `out` (room for `input.count / 4 * 3 + 3` bytes); the count written, or `nil`.
    private static func decode(
        _ input: UnsafeBufferPointer<UInt8>, table: UnsafeBufferPointer<UInt8>, pairs: UnsafeBufferPointer<UInt16>,
        to out: UnsafeMutableBufferPointer<UInt8>
    ) -> Int? {
        var written = 0
        var accumulator: UInt32 = 0
        var bits = 0
        var padding = 0
        var position = 0
        // Whole groups of four symbols, the common case: two lookups of two symbols each, three bytes written at once
        // (a four-byte store whose last byte is not counted as written: the next group's bytes overwrite it, or it
        // stays in the capacity past the count; `out` has room for it: the loop runs only while a whole group
        // remains, and `out` holds three bytes more than whole groups give). The first group with white space,
        // padding or anything else goes to the symbol-by-symbol loop below, from its start.
        if let source = UnsafeRawPointer(input.baseAddress), let target = UnsafeMutableRawPointer(out.baseAddress) {
            while position + 4 <= input.count {
                let group = UInt32(littleEndian: source.loadUnaligned(fromByteOffset: position, as: UInt32.self))
                let high = pairs[Int(group & 0xFFFF)]
                let low = pairs[Int(group >> 16)]
                guard (high | low) & 0x8000 == 0 else { break }
                let value = UInt32(high) << 12 | UInt32(low)
                // Big-endian order: the 24 bits' highest byte first, then the next two.
                target.storeBytes(of: (value << 8).bigEndian, toByteOffset: written, as: UInt32.self)
                written += 3
                position += 4
            }
        }
        for byte in input[position...] {
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

    /// Encodes bytes as base64url without padding (RFC 4648 §5, RFC 7515 §2): how a compact JWS writes each of its
    /// segments.
    package static func encodeURL(_ bytes: ArraySlice<UInt8>) -> String {
        var output: [UInt8] = []
        append(bytes, to: &output)
        var url: [UInt8] = []
        url.reserveCapacity(output.count)
        for byte in output {
            switch byte {
            case UInt8(ascii: "+"): url.append(UInt8(ascii: "-"))
            case UInt8(ascii: "/"): url.append(UInt8(ascii: "_"))
            case UInt8(ascii: "="): continue
            default: url.append(byte)
            }
        }
        return String(decoding: url, as: UTF8.self)
    }

    /// Appends the base64 of `bytes` (standard alphabet, padded) to `output`.
    public static func append(_ bytes: ArraySlice<UInt8>, to output: inout [UInt8]) {
        JSONWriter.append(capacity: encodedCount(bytes.count), to: &output) { $0.putBase64(bytes) }
    }

    /// The length of the base64 of `count` bytes, padding included.
    static func encodedCount(_ count: Int) -> Int { (count + 2) / 3 * 4 }

    /// Writes the base64 of `input` to `output`, which has room for ``encodedCount(_:)`` bytes.
    static func encode(_ input: UnsafeBufferPointer<UInt8>, to output: UnsafeMutablePointer<UInt8>) {
        let symbol = alphabet.utf8Start
        var index = 0
        var position = 0
        while index < input.count {
            let remaining = input.count - index
            let group =
                UInt32(input[index]) << 16
                | (remaining > 1 ? UInt32(input[index + 1]) << 8 : 0)
                | (remaining > 2 ? UInt32(input[index + 2]) : 0)
            output[position] = symbol[Int(group >> 18 & 0x3F)]
            output[position + 1] = symbol[Int(group >> 12 & 0x3F)]
            output[position + 2] = remaining > 1 ? symbol[Int(group >> 6 & 0x3F)] : UInt8(ascii: "=")
            output[position + 3] = remaining > 2 ? symbol[Int(group & 0x3F)] : UInt8(ascii: "=")
            index += 3
            position += 4
        }
    }
}
