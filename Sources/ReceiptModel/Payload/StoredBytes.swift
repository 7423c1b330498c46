/// Where a string that a record decoded lies: a range of the record's own bytes (every DER string, so in practice
/// always), or bytes of its own when the decoder had to join a segmented BER string.
///
/// A record keeps its strings as ranges so that copying it retains one reference, its bytes, instead of one per
/// string: records are copied whenever they are passed on or collected, and those retains and releases were a
/// large part of rendering a receipt with many purchases (BENCHMARKS.md, issue 28).
enum StoredBytes: Sendable {
    case within(Range<Int>)
    case joined(ArraySlice<UInt8>)

    /// `bytes`, stored for a record whose bytes are `record`: as a range when they are a slice of the same storage
    /// inside it.
    init(_ bytes: ArraySlice<UInt8>, in record: ArraySlice<UInt8>) {
        self = Self.lies(bytes, within: record) ? .within(bytes.indices) : .joined(bytes)
    }

    /// The bytes, from the record they were stored for.
    func bytes(in record: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        switch self {
        case .within(let range): record[range]
        case .joined(let bytes): bytes
        }
    }

    /// Whether `bytes` is a non-empty slice of `record`'s own storage, within `record`: the same indices are not
    /// enough, since a joined string's indices start at 0 and may fall inside any record's.
    private static func lies(_ bytes: ArraySlice<UInt8>, within record: ArraySlice<UInt8>) -> Bool {
        guard !bytes.isEmpty, bytes.startIndex >= record.startIndex, bytes.endIndex <= record.endIndex else {
            return false
        }
        let offset = bytes.startIndex - record.startIndex
        return bytes.withUnsafeBufferPointer { inner in
            record.withUnsafeBufferPointer { outer in
                guard let innerBase = inner.baseAddress, let outerBase = outer.baseAddress else { return false }
                return innerBase == outerBase + offset
            }
        }
    }
}
