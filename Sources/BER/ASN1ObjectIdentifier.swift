/// An OBJECT IDENTIFIER kept as its encoded arcs (X.690 §8.19), so comparing two is a byte compare.
public struct ASN1ObjectIdentifier: Hashable, Sendable, CustomStringConvertible {
    /// The content octets of the encoding.
    package let encodedArcs: ArraySlice<UInt8>

    /// Wraps content octets after checking they are well-formed base-128 arcs; `nil` otherwise.
    public init?(encodedArcs: ArraySlice<UInt8>) {
        guard let last = encodedArcs.last, last & 0x80 == 0 else { return nil }
        var startOfArc = true
        for byte in encodedArcs {
            // X.690 §8.19.2: an arc never starts with the padding octet 0x80.
            if startOfArc && byte == 0x80 { return nil }
            startOfArc = byte & 0x80 == 0
        }
        self.encodedArcs = encodedArcs
    }

    /// Builds an identifier from its dotted form, e.g. `"1.2.840.113549.1.7.2"`. Meant for
    /// constants written in source; returns `nil` for text that is not a valid identifier.
    public init?(_ dotted: String) {
        let parts = dotted.split(separator: ".").map { UInt64($0) }
        guard parts.count >= 2, let first = parts[0], let second = parts[1], first <= 2,
            first == 2 || second < 40
        else { return nil }
        // X.690 §8.19.4: the first two arcs share one subidentifier; a second arc that does not fit is no identifier.
        let (firstArc, overflow) = (first * 40).addingReportingOverflow(second)
        guard !overflow else { return nil }
        var arcs: [UInt64] = [firstArc]
        for part in parts.dropFirst(2) {
            guard let part else { return nil }
            arcs.append(part)
        }
        var bytes: [UInt8] = []
        for arc in arcs {
            var groups: [UInt8] = [UInt8(arc & 0x7F)]
            var rest = arc >> 7
            while rest > 0 {
                groups.append(UInt8(rest & 0x7F) | 0x80)
                rest >>= 7
            }
            bytes.append(contentsOf: groups.reversed())
        }
        self.init(encodedArcs: bytes[...])
    }

    /// Builds a constant from dotted text written in source, e.g. `ASN1ObjectIdentifier(constant: "1.3.14.3.2.26")`.
    /// A malformed literal is a programming error and stops the program at first use.
    public init(constant dotted: StaticString) {
        guard let identifier = ASN1ObjectIdentifier("\(dotted)") else {
            preconditionFailure("\(dotted) is not a valid OBJECT IDENTIFIER literal")
        }
        self = identifier
    }

    /// The arcs as numbers; an arc too large for 64 bits is shown as its saturated value.
    public var arcs: [UInt64] {
        var result: [UInt64] = []
        var value: UInt64 = 0
        for byte in encodedArcs {
            value = value > (UInt64.max >> 7) ? UInt64.max : (value << 7) | UInt64(byte & 0x7F)
            if byte & 0x80 == 0 {
                if result.isEmpty {
                    let first: UInt64 = value < 40 ? 0 : (value < 80 ? 1 : 2)
                    result.append(first)
                    result.append(value - first * 40)
                } else {
                    result.append(value)
                }
                value = 0
            }
        }
        return result
    }

    /// The dotted form, e.g. `1.2.840.113635.100.6.11.1`.
    public var description: String { arcs.map(String.init).joined(separator: ".") }

    public static func == (lhs: ASN1ObjectIdentifier, rhs: ASN1ObjectIdentifier) -> Bool {
        lhs.encodedArcs.elementsEqual(rhs.encodedArcs)
    }

    public func hash(into hasher: inout Hasher) {
        for byte in encodedArcs { hasher.combine(byte) }
    }
}
