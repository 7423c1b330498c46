/// A short run of output bytes written through a pointer straight into the spare capacity of ``JSONWriter``'s
/// buffer (`Array.append(addingCapacity:initializingWith:)`).
///
/// Appending to an `Array` one byte at a time checks uniqueness and capacity on every byte; a date triple or a
/// key written that way cost more than the receipt's whole decode (BENCHMARKS.md, "JSON"). A chunk's capacity
/// is fixed by the code that fills it (the longest key, date or number it can write), never by input; a write
/// past it stops the process rather than touch memory that is not the chunk's.
struct OutputChunk {
    private let base: UnsafeMutablePointer<UInt8>
    private let capacity: Int
    /// Bytes written so far.
    private(set) var count = 0

    /// A chunk over `capacity` uninitialized bytes at `base`, which the caller owns for the chunk's lifetime.
    init(base: UnsafeMutablePointer<UInt8>, capacity: Int) {
        self.base = base
        self.capacity = capacity
    }

    /// The bytes written, valid while the memory the chunk was made over is.
    var written: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(start: base, count: count) }

    @inline(__always)
    mutating func put(_ byte: UInt8) {
        precondition(count < capacity, "an output chunk was given less room than its writer needs")
        base[count] = byte
        count += 1
    }

    @inline(__always)
    mutating func put(_ text: StaticString) {
        let length = text.utf8CodeUnitCount
        precondition(length <= capacity - count, "an output chunk was given less room than its writer needs")
        (base + count).initialize(from: text.utf8Start, count: length)
        count += length
    }

    /// The first `count` bytes of `vector`, written with one store of the whole vector: the chunk must have room
    /// for all of it, and the bytes past `count` are left to be overwritten (or to lie past what the chunk wrote).
    @inline(__always)
    mutating func put(_ vector: SIMD32<UInt8>, count length: Int) {
        precondition(
            length <= vector.scalarCount && vector.scalarCount <= capacity - count,
            "an output chunk was given less room than its writer needs")
        UnsafeMutableRawPointer(base + count).storeBytes(of: vector, as: SIMD32<UInt8>.self)
        count += length
    }

    /// `"name":`.
    @inline(__always)
    mutating func putKey(_ name: StaticString) {
        put(UInt8(ascii: "\""))
        put(name)
        put(UInt8(ascii: "\""))
        put(UInt8(ascii: ":"))
    }

    /// Two decimal digits of `value` (0...99). Division by a constant compiles to a multiplication.
    @inline(__always)
    mutating func putTwoDigits(_ value: Int64) {
        put(UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: value / 10))
        put(UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: value % 10))
    }

    /// The decimal digits of `value`, with a leading `-` when negative: at most 20 bytes.
    mutating func putDecimal(_ value: Int64) {
        if value < 0 { put(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        // The count of digits from the count of bits: 1233 / 4096 is just above log10(2), so `estimate` is the count
        // or one less, and one comparison with a power of ten decides. 19 digits at most: Int64's magnitude is below
        // 10^19, the last power of ten UInt64 holds.
        let estimate = ((64 - magnitude.leadingZeroBitCount) &* 1233) >> 12
        let length = max(1, magnitude >= Self.powersOfTen[estimate] ? estimate + 1 : estimate)
        precondition(length <= capacity - count, "an output chunk was given less room than its writer needs")
        // Digits come out last first, straight into their places.
        var position = count + length
        while magnitude >= 10 {
            let pair = Int(magnitude % 100)
            magnitude /= 100
            position -= 2
            base[position] = Self.digitPairs.utf8Start[pair * 2]
            base[position + 1] = Self.digitPairs.utf8Start[pair * 2 + 1]
        }
        if position > count {
            base[count] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: magnitude)
        }
        count += length
    }

    /// `"value"`, for bytes that need no escaping (``JSONWriter/isPlainASCII(_:)``).
    mutating func putQuoted(plainASCII value: ArraySlice<UInt8>) {
        precondition(value.count + 2 <= capacity - count, "an output chunk was given less room than its writer needs")
        base[count] = UInt8(ascii: "\"")
        value.withUnsafeBufferPointer { bytes in
            if let source = bytes.baseAddress { (base + count + 1).initialize(from: source, count: bytes.count) }
        }
        base[count + 1 + value.count] = UInt8(ascii: "\"")
        count += value.count + 2
    }

    /// The base64 of `bytes` (standard alphabet, padded).
    mutating func putBase64(_ bytes: ArraySlice<UInt8>) {
        bytes.withUnsafeBufferPointer { putBase64($0) }
    }

    mutating func putBase64(_ bytes: UnsafeBufferPointer<UInt8>) {
        let length = Base64.encodedCount(bytes.count)
        precondition(length <= capacity - count, "an output chunk was given less room than its writer needs")
        Base64.encode(bytes, to: base + count)
        count += length
    }

    /// 10^0 … 10^19, for ``putDecimal(_:)``'s count of digits.
    private static let powersOfTen: [UInt64] = (0..<20).reduce(into: []) { powers, exponent in
        powers.append(exponent == 0 ? 1 : powers[exponent - 1] * 10)
    }

    /// "00", "01", … "99", so a number's digits are written two at a time.
    private static let digitPairs: StaticString = """
        00010203040506070809101112131415161718192021222324252627282930313233343536373839\
        40414243444546474849505152535455565758596061626364656667686970717273747576777879\
        8081828384858687888990919293949596979899
        """
}
