/// Hexadecimal text of bytes, both ways: the package's one encoder and decoder (fingerprints, device
/// identifiers, the forge's byte strings).
package enum Hex {
    /// `bytes` as hex, two digits per byte, lower case unless `uppercase`.
    package static func encode(_ bytes: some Sequence<UInt8>, uppercase: Bool = false) -> String {
        // One generic call to reach the bytes, then a concrete loop: called unspecialized from another module,
        // a generic loop cost a witness call per byte (the ledger hex-encodes every receipt's digest).
        bytes.withContiguousStorageIfAvailable { encode(buffer: $0, uppercase: uppercase) }
            ?? Array(bytes).withUnsafeBufferPointer { encode(buffer: $0, uppercase: uppercase) }
    }

    private static func encode(buffer bytes: UnsafeBufferPointer<UInt8>, uppercase: Bool) -> String {
        let digits: StaticString = uppercase ? "0123456789ABCDEF" : "0123456789abcdef"
        var text: [UInt8] = []
        text.reserveCapacity(bytes.count * 2)
        digits.withUTF8Buffer { digits in
            for byte in bytes {
                text.append(digits[Int(byte >> 4)])
                text.append(digits[Int(byte & 0x0F)])
            }
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// Where hex text stops being hex.
    package enum Failure: Error, Equatable {
        /// The text has an odd number of digits.
        case oddLength(Int)
        /// A character that is not a hex digit (upper or lower case), at this offset.
        case notADigit(at: Int)
    }

    /// The bytes of hex text (upper or lower case, no separators).
    package static func decode(_ text: some Collection<UInt8>) -> Result<[UInt8], Failure> {
        guard text.count % 2 == 0 else { return .failure(.oddLength(text.count)) }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.count / 2)
        var high: UInt8?
        for (offset, character) in text.enumerated() {
            guard let value = nibble(character) else { return .failure(.notADigit(at: offset)) }
            if let first = high {
                bytes.append(first << 4 | value)
                high = nil
            } else {
                high = value
            }
        }
        return .success(bytes)
    }

    /// `text` with each `%XX` escape (RFC 3986 §2.1) replaced by its byte, once (a `+` stays a `+`); `nil` when an
    /// escape is malformed or the bytes are not UTF-8, which are never repaired into U+FFFD.
    public static func percentDecoded(_ text: Substring) -> String? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        var iterator = text.utf8.makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard let high = iterator.next().flatMap(nibble), let low = iterator.next().flatMap(nibble) else {
                return nil
            }
            bytes.append(high << 4 | low)
        }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func nibble(_ character: UInt8) -> UInt8? {
        switch character {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): character - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): character - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): character - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
